"""Project-aware reading: names a kernel file imports from the other modules
of its own project (`from .consts import N`, `from pkg.math import safe_div`),
read from those modules' SOURCE -- never imported, never executed.

Invariants:
- the project is the file's package: the highest folder reached by walking up
  folders that hold `__init__.py`, or that are namespace packages (PEP 420,
  no `__init__.py`) the file's own imports need to be packages: as many
  folders as its deepest relative import climbs (`from ...math import *`
  three), and its own folder when it imports a module through the folder's
  name (`from mypkg.consts import N` in `mypkg/k.py`) that no sibling
  provides; a file outside any package: its own folder. Only modules below it
  are read, so a name imported from outside (numpy, torch) stays non-constant;
- an imported name is a constant only when it is one in the defining module
  (scanned by the same rules: a name that module can rebind is not) and the
  importing file cannot rebind it either;
- an imported `@func` is taken only when every module-level name its body
  reads means the same in both files (same DSL alias, same constant, same
  func); otherwise the name stays non-constant and a kernel calling it gets an
  error;
- a project module that cannot be found is a located error at the import
  naming the import chain and where verikern looked;
- `Project.files` records the sha256 of every project module read, so a
  change in one changes the proof-cache key.
"""
from __future__ import annotations

import ast
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from .annotations import value_type
from .configuration import configured_tree, decided_tree
from . import module_reads
from .outside_index import outside_index
from .rebinding import ANY, Rebinding, outside_rebindings
from .source_reads import read_source
from .star_imports import bind_star, unread_star

#: the DSL's own packages: `from warp.x import y` is never a project import
DSL_PACKAGES = ("verikern", "warp")

#: the attribute set on the AST nodes of an imported func: the file it is in
FOREIGN_FILE = "_verikern_file"


@dataclass
class Project:
    """One project: its search base (the folder above the top package),
    the top package's name ("" for a file outside any package) and the
    modules read so far (dotted name -> ModuleInfo, None while being read)."""

    base: Path
    top: str
    modules: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)   # path -> sha256 of every module read
    #: every source file of the project (path, module, bytes), read once (_project_data)
    sources: list | None = None
    #: every source file of the project (path, module), listed once (_project_sources)
    listing: list | None = None
    #: the configuration the modules are read under (configuration.py): ((Choice, index), ...)
    configuration: tuple = ()
    #: module_reads.py: the modules being read (innermost last), and each module's read
    frames: list = field(default_factory=list)
    reads: dict = field(default_factory=dict)
    #: class_funcs.py `_stores_and_dotted_calls`: each func's walk, by its children's identities
    func_walks: dict = field(default_factory=dict)

    @classmethod
    def of_file(cls, path, tree: ast.Module | None = None) -> tuple["Project", str]:
        """The project holding `path` (whose parsed source is `tree`, for
        the namespace packages its imports need) and its dotted module name."""
        p = Path(path).resolve()
        parts = [] if p.name == "__init__.py" else [p.stem]
        folder = p.parent
        needed = namespace_depth(tree, p.parent) if tree is not None else 0
        while ((folder / "__init__.py").is_file() or len(parts) <= needed) and folder.parent != folder:
            parts.insert(0, folder.name)
            folder = folder.parent
        top = parts[0] if len(parts) > 1 or p.name == "__init__.py" else ""
        return cls(folder, top), ".".join(parts)

    def locate(self, dotted: str) -> tuple[Path | None, list[Path]]:
        """The source file of module `dotted` (or None) and the paths tried."""
        rel = Path(*dotted.split("."))
        tried = [self.base / rel.with_suffix(".py"), self.base / rel / "__init__.py"]
        return module_reads.asked(self, "locate", dotted, next((t for t in tried if t.is_file()), None)), tried

    def compiled(self, dotted: str) -> bool:
        """Whether module `dotted` is a compiled extension (.so/.pyd) of the project."""
        rel = Path(*dotted.split("."))
        folder = self.base / rel.parent
        return module_reads.asked(self, "compiled", dotted, folder.is_dir() and any(
            any(folder.glob(f"{rel.name}{suffix}")) for suffix in (".so", ".*.so", ".pyd", ".*.pyd")))

    def in_project(self, dotted: str) -> bool:
        head = dotted.split(".")[0]
        if self.top:
            return head == self.top
        return self.locate(dotted)[0] is not None   # a sibling script module


def namespace_depth(tree: ast.Module, folder: Path) -> int:
    """How many folders above a module file in `folder` its imports need to
    be packages (PEP 420 namespace packages where they hold no
    `__init__.py`): its deepest relative import's level, and at least 1 when
    it imports a module through its own folder's name that no sibling file
    or folder provides."""
    depth = 0
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.level:
            depth = max(depth, n.level)
        heads = [a.name.split(".")[0] for a in n.names] if isinstance(n, ast.Import) else \
            [n.module.split(".")[0]] if isinstance(n, ast.ImportFrom) and not n.level and n.module else []
        if folder.name in heads and not (folder / f"{folder.name}.py").is_file() \
                and not (folder / folder.name).is_dir():
            depth = max(depth, 1)
    return depth


def target_module(stmt: ast.ImportFrom, importer: str, is_package: bool) -> str | None:
    """The dotted module `stmt` names, relative imports resolved against the
    importing module `importer` (None: it climbs above the top package)."""
    if stmt.level == 0:
        return stmt.module or ""
    pkg = importer.split(".") if is_package else importer.split(".")[:-1]
    if stmt.level - 1 > len(pkg) or (stmt.level - 1 == len(pkg) and not stmt.module):
        return None
    base = pkg[:len(pkg) - (stmt.level - 1)]
    return ".".join(base + ([stmt.module] if stmt.module else []))


def read_module(project: Project, dotted: str, path: Path):
    """The scanned ModuleInfo of project module `dotted` at `path` (cached in the
    project; kept for the next reads alike, module_reads.py; None while it is being
    read: an import cycle gives no constants)."""
    if dotted in project.modules:
        module_reads.known(project, dotted)
        return project.modules[dotted]
    project.modules[dotted] = None
    many = len(_project_sources(project)) > MAX_SCANNED_FILES
    digest = None if many else (_project_data(project), project.files[PROJECT_SOURCES])[1]
    info = module_reads.read(project, dotted, path, digest,
                             lambda data: _read_fresh(project, dotted, path, data), _layout_answer(project))
    project.modules[dotted] = info
    return info


def _layout_answer(project: Project):
    """The project's answer now to a layout question module_reads.py recorded."""
    def answer(question: str, dotted: str):
        with _not_recorded(project):
            if question == "locate":
                return project.locate(dotted)[0]
            return project.compiled(dotted)
    return answer


class _not_recorded:
    """The project's layout questions asked while this is open are recorded nowhere."""

    def __init__(self, project: Project):
        self.project = project

    def __enter__(self):
        self.frames, self.project.frames = self.project.frames, []

    def __exit__(self, *exc):
        self.project.frames = self.frames


def _read_fresh(project: Project, dotted: str, path: Path, data: bytes):
    """Module `dotted` read from its bytes `data` under the project's configuration."""
    from .module import ModuleInfo, scan_module  # lazy: import cycle with .module (reading an imported module scans it)
    text = data.decode("utf-8", "replace")

    def fresh():
        made = ModuleInfo(str(path), text)
        made.project, made.module_name = project, dotted
        made.is_package = path.name == "__init__.py"
        return made

    info = fresh()
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        info.nonconstant.add("*")
    else:
        module_reads.count_tree(project, tree)
        tree = configured_tree(tree, str(path), project.configuration)
        scan_module(tree, info)
        decided = decided_tree(tree, info) if project.configuration else None
        if decided is not None:     # `if scalar_t == wp.float32:` decided by the configuration
            info = fresh()
            scan_module(decided, info)
    return info


def bind_import_from(stmt: ast.ImportFrom, info) -> bool:
    """Bind the names of `from <project module> import ...` in `info` (True),
    or return False when the import is not of a project module."""
    project: Project | None = info.project
    if project is None:
        return False
    target = target_module(stmt, info.module_name, info.is_package)
    if target is None or (stmt.level > 0 and not project.top):
        info.errors.append(info.error(
            f"the relative import climbs above the package {project.top or '(none)'!r}",
            stmt, "import", "import from a module inside the project"))
        return True
    if stmt.level == 0 and (target.split(".")[0] in DSL_PACKAGES
                            or not project.in_project(target)):
        return False
    if target == info.module_name and [a.name for a in stmt.names] == ["*"]:
        return True     # `from .itself import *` (warpsphcore's math/wp_sqrt.py): its names, bound to themselves
    path, tried = project.locate(target)
    for alias in stmt.names:
        local = alias.asname or alias.name
        if alias.name == "*":     # its names, when they can be read (star_imports.py)
            defining = read_module(project, target, path) if path is not None else None
            if not bind_star(info, defining, stmt, _bind_name):
                unread_star(info, stmt)
            continue
        sub_path, _ = project.locate(f"{target}.{alias.name}")
        if path is None and sub_path is None and project.compiled(target):
            info.nonconstant.add(local)   # an extension module: a value, never a constant
            continue
        if path is None and sub_path is None:
            info.nonconstant.add(local)
            why = (f"the module {target!r} is not in the project (looked for "
                   + " and ".join(str(t) for t in tried) + ")")
            _unresolved(info, stmt, alias.name, local, target, why)
            continue
        defining = read_module(project, target, path) if path is not None else None
        if sub_path is not None and (defining is None or not _binds(defining, alias.name)
                                     or alias.name in defining.module_aliases):
            info.nonconstant.add(local)    # `from . import consts`: a module, not a constant
            sub = read_module(project, f"{target}.{alias.name}", sub_path)
            if sub is not None and "*" not in sub.nonconstant and info.rebinding(local) is None:
                info.module_aliases[local] = sub     # `consts.N` reads its source
            continue
        _bind_name(info, defining, alias.name, local, stmt)
    return True


def bind_module_alias(stmt: ast.Import, dotted: str, local: str, info) -> None:
    """`import pkg.consts as c` of a project module: `c.N` reads the
    constants of pkg.consts (module_member); an unresolvable project module
    is a located error."""
    project: Project | None = info.project
    if project is None or dotted.split(".")[0] in DSL_PACKAGES or \
            not project.in_project(dotted) or info.rebinding(local) is not None:
        return
    path, tried = project.locate(dotted)
    if path is None:
        if not project.compiled(dotted):
            _unresolved(info, stmt, dotted, local, dotted, (
                f"the module {dotted!r} is not in the project (looked for "
                + " and ".join(str(t) for t in tried) + ")"))
        return
    defining = read_module(project, dotted, path)
    if defining is not None and "*" not in defining.nonconstant:
        info.module_aliases[local] = defining


def module_member(info, node: ast.AST):
    """For `c.N` with `c` a project module alias (bind_module_alias), or a
    chain of them (`pkg.config.N`: `config` a module alias of the module
    `pkg` names, as `from .core import config` binds in a package
    `__init__`): the ModuleInfo of the last module and the member's name,
    when no module on the chain can rebind the next name; else None."""
    if isinstance(node, ast.Attribute):
        defining = aliased_module(info, node.value)
        if defining is not None and defining.rebinding(node.attr) is None:
            return defining, node.attr
    return None


def aliased_module(info, node: ast.AST):
    """The ModuleInfo of the project module `node` names: a module alias of
    `info` (`c`), or a module alias of such a module (`pkg.config`), each
    link one its module cannot rebind; else None."""
    if isinstance(node, ast.Name):
        return info.module_aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        outer = aliased_module(info, node.value)
        if outer is not None and outer.rebinding(node.attr) is None:
            return outer.module_aliases.get(node.attr)
    return None


def chain_root(node: ast.AST) -> ast.Name | None:
    """The name an attribute chain starts from (`pkg` of `pkg.config.N`), or None."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def _unresolved(info, stmt: ast.AST, name: str, local: str, target: str, why: str) -> None:
    """`from target import name` cannot be resolved: a located error naming
    the import chain, kept for modules that import `local` from this one."""
    link = f"{info.loc(stmt)}: `{name}` from {target}"
    info.unresolved[local] = [link] + ([why] if isinstance(why, str) else why)
    chain = info.unresolved[local]
    info.errors.append(info.error(
        f"cannot resolve the import of {name!r}: " + " -> ".join(chain[:-1])
        + f": {chain[-1]}", stmt, "import",
        "check the module path and the name, or pass the value as a kernel parameter"))


def _bind_name(info, defining, name: str, local: str, stmt: ast.AST) -> None:
    """Bring `defining`'s module-level `name` into `info` as `local`."""
    info.nonconstant.add(local)
    if defining is not None:
        info.name_origins[local] = (defining, name)     # for errors (name_origins.py)
    if defining is not None and name in defining.unresolved:   # unresolved further down
        _unresolved(info, stmt, name, local, defining.module_name, defining.unresolved[name])
        return
    if defining is not None and not _binds(defining, name):
        _unresolved(info, stmt, name, local, defining.module_name,
                    f"{defining.filename} binds no module-level name {name!r}")
        return
    if defining is None or "*" in defining.nonconstant or info.rebinding(local) is not None:
        return
    if name in defining.decorators:        # a project kernel decorator (decorators.py)
        info.decorators[local] = defining.decorators[name]
    if name in defining.guards:
        info.guards[local] = defining.guards[name]
    if name in defining.literal_lists:     # for overload_decls.py
        info.literal_lists[local] = defining.literal_lists[name]
    if name in defining.project_funcs:
        info.project_funcs[local] = defining.project_funcs[name]
    site = defining.rebinding(name)
    if site is not None:
        info.rebindings.setdefault(local, site)   # a kernel reading it is told where
    if name in defining.constants and defining.rebinding(name) is None:
        info.constants[local] = defining.constants[name]
        info.nonconstant.discard(local)
    elif name in defining.typed_constants and defining.rebinding(name) is None:
        info.typed_constants[local] = defining.typed_constants[name]
        info.nonconstant.discard(local)
    elif name in defining.enums and defining.rebinding(name) is None:
        info.enums[local] = defining.enums[name]
    elif name in defining.type_aliases and defining.rebinding(name) is None:
        node = defining.type_aliases[name]
        t = value_type(defining, node)
        if t is not None and value_type(info, node) == t:
            info.type_aliases[local] = node
        elif t is not None:     # its names mean something else here: brought along with their meaning
            from .imported_funcs import bring_global   # lazy: import cycle with this module
            brought = bring_global(info, defining, name, frozenset())
            if brought is not None:
                info.type_aliases[local] = ast.Name(id=brought, ctx=ast.Load())
    elif name in defining.funcs and defining.rebinding(name) is None \
            and name not in defining.ambiguous_funcs:
        info.pending_funcs.append((defining, name, local))
    elif name in defining.structs and defining.rebinding(name) is None:
        # a @wp.struct: its field annotations are read in the module that defines it
        info.structs[local] = defining.structs[name]
        info.struct_origins[local] = defining.struct_origins.get(name, defining)


def _binds(info, name: str) -> bool:
    """Whether the scanned module binds `name` at module level (or may: a
    star import, a name it can rebind anywhere)."""
    return "*" in info.nonconstant or "__getattr__" in info.nonconstant \
        or name in info.star_names or info.rebinding(name) is not None or any(
        name in names for names in (info.constants, info.typed_constants, info.enums,
                                    info.type_aliases, info.funcs, info.nonconstant,
                                    info.aliases, info.from_imports, info.std_modules)) \
        or any(d.node.name == name for d in info.definitions)


#: the `project.files` entry that stands for every source file of the project
#: (all are read for rebindings from outside: a change in any changes the key)
PROJECT_SOURCES = "<every source file of the project>"

#: the most project files scanned for rebindings from outside (a bigger
#: project: every module-level name of its modules may be rebound)
MAX_SCANNED_FILES = 5000


def _project_sources(project: Project) -> list[tuple[str, str]]:
    """Every Python file of the project with its dotted module name (the
    package's files, or the sibling files of a file outside any package), in
    path order; listed once per project (a project is one compile's view)."""
    if project.listing is None:
        folder = project.base / project.top if project.top else project.base
        base = str(project.base)
        if project.top:
            found = [str(f) for f in folder.rglob("*.py")]
        else:
            with os.scandir(folder) as entries:
                found = [e.path for e in entries if e.name.endswith(".py")]
        out = []
        prefix = os.path.join(base, "")
        for full in sorted(found, key=lambda f: f.split(os.sep)):
            inside = full[len(prefix):] if full.startswith(prefix) else os.path.relpath(full, base)
            rel = inside[:-3].split(os.sep)
            parts = rel[:-1] if rel[-1] == "__init__" else rel
            out.append((full, ".".join(parts)))
        project.listing = out
    return project.listing


def _handles_of(imports: list, importer: str, is_package: bool, dotted: str) -> set[str]:
    """The names a module binds (anywhere) to module `dotted` or a package above it;
    `imports`: its import statements (outside_index.OutsideIndex.imports)."""
    def reaches(full: str) -> bool:
        return full == dotted or dotted.startswith(full + ".")

    out: set[str] = set()
    for n in imports:
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.asname and reaches(a.name):
                    out.add(a.asname)
                elif not a.asname and reaches(a.name.split(".")[0]):
                    out.add(a.name.split(".")[0])
        elif isinstance(n, ast.ImportFrom):
            base = target_module(n, importer, is_package)
            for a in n.names:
                if base is not None and a.name != "*" and reaches(f"{base}.{a.name}" if base else a.name):
                    out.add(a.asname or a.name)
    return out


def _project_data(project: Project) -> list[tuple[str, str, bytes]]:
    """The project's source files with their module names and bytes, read
    once per project; their joint digest goes into `project.files`."""
    if project.sources is None:
        digest = hashlib.sha256()
        project.sources = []
        for path, name in _project_sources(project):
            try:
                read = read_source(path)    # unchanged since this process read it: not again
            except OSError:
                continue
            digest.update(path.encode() + b"\0" + read.digest)
            project.sources.append((path, name, read.data))
        project.files[PROJECT_SOURCES] = digest.hexdigest()
    return project.sources


def rebindings_from_outside(project: Project, dotted: str) -> dict:
    """name (or ANY) -> a Rebinding in another module of the project that can
    rebind module `dotted`'s names (`import pkg.consts as c; c.N = 7`), read
    from source (rebinding.outside_rebindings). Every project file is hashed
    into `project.files` (one entry, PROJECT_SOURCES): a change anywhere in
    the project changes the proof-cache key."""
    found: dict = {}
    if len(_project_sources(project)) > MAX_SCANNED_FILES:
        from verikern.mir.nodes import SourceLoc  # lazy: only for this rare case
        found[ANY] = Rebinding(SourceLoc(str(project.base), 0, 0),
                               f"a project of more than {MAX_SCANNED_FILES} files (not scanned)")
        return found
    data_of = _project_data(project)
    key = (dotted, project.files[PROJECT_SOURCES])
    if key in _OUTSIDE_SEEN:
        return dict(_OUTSIDE_SEEN[key])
    short = (dotted.split(".")[-1] if dotted else "").encode()
    for path, name, data in data_of:
        if name == dotted:
            continue
        if short not in data and b"modules" not in data and b"import_module" not in data:
            continue                   # it names neither the module nor a module lookup
        index = outside_index(path, data)   # parsed and walked once for every module looked for
        if index is None:
            continue                   # it does not parse: it cannot run either
        handles = _handles_of(index.imports, name, os.path.basename(path) == "__init__.py", dotted)
        for name_, site in outside_rebindings(index, path, handles).items():
            found.setdefault(name_, site)
    _OUTSIDE_SEEN[key] = dict(found)
    return found


#: (module, digest of every project file with its path) -> `rebindings_from_outside`'s
#: answer: a function of exactly those files, so one process that reads the same
#: project again (the re-proof of a suggestion compiles the pasted file again: a
#: project of 68 files took 8 CPU s to parse and walk) does not parse it again;
#: any change of any file, or another project, is another key
_OUTSIDE_SEEN: dict = {}
