"""No import cycle among app's modules, a lazy import inside a function included: found on grimp's graph (the one
import-linter checks; `make lint` runs its contracts, pyproject.toml [tool.importlinter]). Those contracts see cycles
between sibling modules and packages; this sees every cycle between two modules, a package and one of its own modules
too (app/api/__init__.py importing app/api/runs.py, which imports app/api/__init__.py back), and names it."""

import grimp


def cycles(graph) -> list[list[str]]:
    """One cycle per module that is on one, as the modules in import order, the first one again at the end: for each
    direct import, the shortest chain of imports back from the imported module to the importer."""
    found, seen = [], set()
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer, as_packages=False)
            if back and importer not in seen:
                found.append([importer, *back])
                seen.update(back)
    return found


def test_no_module_of_app_imports_itself_back():
    graph = grimp.build_graph("app", include_external_packages=False, cache_dir=None)
    assert len(graph.modules) > 50  # the whole app was read
    assert cycles(graph) == [], "import cycles (each module -> ... -> itself): " + "; ".join(
        " -> ".join(c) for c in cycles(graph)
    )


def test_a_cycle_is_found_and_named():
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("pkg", "pkg.views"),  # a package and its own module, each importing the other
        ("pkg.views", "pkg"),
        ("pkg.a", "pkg.b"),  # three siblings in a ring
        ("pkg.b", "pkg.c"),
        ("pkg.c", "pkg.a"),
        ("pkg.c", "pkg.d"),  # and an ordinary import
    ]:
        graph.add_import(importer=importer, imported=imported)
    assert cycles(graph) == [["pkg", "pkg.views", "pkg"], ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
