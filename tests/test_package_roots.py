"""Two projects side by side whose packages share a name (services in a monorepo, copies of one
project): an absolute import reaches the package in the importer's own package root, the folder on
`sys.path` its own package is imported from, never the other project's."""

from __future__ import annotations

import pytest

from conftest import edges_from, indexed_edges

SERVICE = {
    "app/__init__.py": "",
    "app/models.py": "class User:\n    def save(self):\n        return self\n",
    "app/views.py": "from app.models import User\nimport app.models\n\n\n"
                    "def create():\n    user = User()\n    return user.save()\n",
}
PROJECT = {
    **{f"services/billing/{path}": text for path, text in SERVICE.items()},
    **{f"services/shop/{path}": text for path, text in SERVICE.items()},
    "tools/report.py": "from app.models import User\n\n\ndef report():\n    return User()\n",
    "scripts/helpers.py": "def helper():\n    return 1\n",
    "scripts/run.py": "from helpers import helper\n\n\ndef main():\n    return helper()\n",
    "other/helpers.py": "def helper():\n    return 2\n",
}


@pytest.fixture(scope="module")
def edges(tmp_path_factory):
    return indexed_edges(tmp_path_factory, "package-roots", PROJECT)



@pytest.mark.parametrize("service", ["billing", "shop"])
def test_an_import_reaches_the_package_beside_the_importer(edges, service):
    views = f"services/{service}/app/views.py"
    models = f"services/{service}/app/models.py"
    assert edges_from(edges, views, "imports") == {(f"{models}::User", "import"), (models, "import")}
    assert edges_from(edges, f"{views}::create", "calls") == {(f"{models}::User", "import"),
                                                           (f"{models}::User.save", "inferred")}


def test_a_script_imports_from_its_own_folder(edges):
    assert edges_from(edges, "scripts/run.py::main", "calls") == {("scripts/helpers.py::helper", "import")}


def test_an_importer_beside_neither_package_names_every_one(edges):
    """tools/ sits beside neither service: which `app` it imports depends on how it is run."""
    found = edges_from(edges, "tools/report.py", "imports")
    assert {target for target, _ in found} == {"services/billing/app/models.py::User",
                                               "services/shop/app/models.py::User"}
    assert {resolution for _, resolution in found} == {"ambiguous"}
    calls = edges_from(edges, "tools/report.py::report", "calls")
    assert calls == {("services/billing/app/models.py::User", "ambiguous"), ("services/shop/app/models.py::User", "ambiguous")}
