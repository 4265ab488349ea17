"""Anchors, the code a record is about, stamped with the hashes the code had when the record was
written or verified; and the staleness verdicts computed on read by comparing them with the code
as it is now."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphctx.records.vocabulary import AnchorState, StalenessState, refuse


class Anchor(BaseModel):
    """The code a record is about, as it was when the record was written or last verified."""

    model_config = ConfigDict(extra="ignore")

    entity: str  # entity id: path::Qualified.name, or a file path for a whole file
    sig_hash: str = ""
    body_hash: str = ""
    generation: int | None = None  # the code index generation the hashes came from
    commit: str | None = None  # git HEAD at that time, when the repository is in git

    @field_validator("entity")
    @classmethod
    def _entity(cls, value: str) -> str:
        value = refuse(value.strip(), "anchor", "name")
        if not value:
            raise ValueError("an anchor needs an entity id (path::Qualified.name or a file path)")
        return value


class AnchorStatus(BaseModel):
    """How one anchor compares with the code index now."""

    entity: str
    state: AnchorState
    message: str
    candidates: list[str] = Field(default_factory=list)  # for moved: where the same code is now


class Staleness(BaseModel):
    """The verdict on a record's anchors, computed on read; it never hides a record. The record's
    state is its worst anchor's: orphaned > contract-changed > drifted > moved > fresh."""

    state: StalenessState
    message: str
    anchors: list[AnchorStatus] = Field(default_factory=list)
    generation: int | None = None  # the code index generation it was computed against
