"""Federation: answers that reach into the other projects a team server hosts, through the links
between them (links.py): where one project imports the other's package (packages.py) or calls one
of its HTTP routes (routes.py). answers.py brings linked entities into an answer, scored down by the
decay, labelled with their project; merges the other projects' search hits; and lists an entity's
dependents in other projects for impact. `Project.federation` is a project's Federation."""

from graphctx.federation.answers import Federation

__all__ = ["Federation"]
