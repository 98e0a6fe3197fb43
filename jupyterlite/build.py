"""Build the JupyterLite site: ``python jupyterlite/build.py`` -> ``jupyterlite/_output``.

A static site whose Python (Pyodide) runs in the browser tab, with gatewaykit installed. Everything comes
from the package registries (PyPI and npm), never from a CDN, and is cached (``jupyterlite/.cache``, or
``GATEWAYKIT_LITE_CACHE``), so a second build downloads nothing new:

- a virtualenv with ``jupyterlite-core`` and ``jupyterlite-pyodide-kernel`` (the site builder and the
  kernel's front end), its own so their pins never move the project's;
- Pyodide itself, the ``pyodide`` npm package at the version the kernel expects (the interpreter and its
  standard library; npm ships no packages);
- every wheel the kernel and gatewaykit need, for Pyodide's platform (``pyemscripten_*_wasm32``): pure
  Python wheels, and pydantic-core's WebAssembly wheel from PyPI. They are listed in the site's own
  ``pyodide-lock.json``, so ``import gatewaykit`` in a cell loads them (the kernel loads a cell's imports
  from that lock) and nothing is asked of any other host;
- gatewaykit's own wheel, built from this tree.

numpy, pandas and pillow for Pyodide are on Pyodide's CDN only, so the site has none of them: gatewaykit
works without them (``to_pandas()`` says what it needs).

Options: ``--output DIR`` (default ``jupyterlite/_output``), ``--cache DIR``. Prints the time it took
and the site's size.
"""

from __future__ import annotations

import argparse
import email.parser
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import venv
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

#: the site builder and the kernel (jupyterlite-pyodide-kernel 0.8.6 runs Pyodide 314.0.6, Python 3.14),
#: and the ipywidgets front end the site serves (jupyterlab_widgets' lab extension).
BUILDER = ["jupyterlite-core[contents]==0.8.6", "jupyterlite-pyodide-kernel==0.8.6", "jupyterlab_widgets==3.0.17",
           "packaging>=24"]
PYODIDE_NPM = "pyodide@314.0.6"
PYODIDE_PLATFORM = "pyemscripten_2026_0_wasm32"  # the lock's info.abi_version (PEP 783 tag)
PYODIDE_PYTHON = "3.14"

#: What the page's Python installs besides gatewaykit with its ``browser`` extra (rendered answers, live
#: widgets): the kernel's own needs (it installs ipython, jedi and comm; micropip first), at the versions
#: the kernel's Pyodide was released with.
IN_PAGE = ["micropip==0.11.1", "ipython==9.12.0", "jedi==0.19.2", "comm"]
#: gatewaykit's extra for a browser page: loaded with it (the kernel loads only what a cell names).
OWN_EXTRA = "browser"
#: Served by the kernel itself (shims in its piplite index): never from the lock.
KERNEL_SHIMS = {"ipykernel", "widgetsnbextension", "pyodide-kernel", "piplite"}
#: The Python markers of the page (Pyodide), for each wheel's requirements.
PAGE_MARKERS = {"sys_platform": "emscripten", "platform_system": "Emscripten", "os_name": "posix",
                "platform_machine": "wasm32", "python_version": PYODIDE_PYTHON, "python_full_version": "3.14.2",
                "implementation_name": "cpython", "platform_python_implementation": "CPython"}
#: The npm package's files the page does not load.
NOT_SERVED = {"README.md", "package.json", "console.html", "console-v2.html"}
#: The apps the site offers: JupyterLab, Notebook (tree + notebooks), and the REPL.
APPS = ["lab", "notebooks", "tree", "repl"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=HERE / "_output")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get("GATEWAYKIT_LITE_CACHE", HERE / ".cache")))
    parser.add_argument("--in-builder", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    cache = args.cache.resolve()
    if not args.in_builder:
        started = time.monotonic()
        python = builder_python(cache)
        command = [str(python), __file__, "--in-builder", "--output", str(args.output.resolve()), "--cache", str(cache)]
        status = subprocess.call(command)
        if status == 0:
            print(f"built {args.output} in {time.monotonic() - started:.1f} s: {size_of(args.output) / 1e6:.1f} MB")
        return status
    build_site(args.output.resolve(), cache)
    return 0


def builder_python(cache: Path) -> Path:
    """The builder's virtualenv (made once per set of pins)."""
    key = hashlib.sha256("\n".join(BUILDER).encode()).hexdigest()[:10]
    home = cache / f"builder-{key}"
    python = home / "bin" / "python"
    if not (home / ".ready").exists():
        shutil.rmtree(home, ignore_errors=True)
        venv.EnvBuilder(with_pip=True).create(home)
        run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *BUILDER], cache)
        (home / ".ready").write_text("\n".join(BUILDER))
    return python


def run(command: list[str], cache: Path, **kwargs) -> subprocess.CompletedProcess:
    """``command`` with pip's download cache inside ``cache`` (so the site's downloads stay there)."""
    env = {**os.environ, "PIP_CACHE_DIR": str(cache / "pip"), "npm_config_cache": str(cache / "npm")}
    return subprocess.run(command, check=True, env=env, **kwargs)


def build_site(output: Path, cache: Path) -> None:
    staging = cache / "site"
    shutil.rmtree(staging, ignore_errors=True)
    pyodide_dir = staging / "static" / "pyodide"
    pyodide_dir.parent.mkdir(parents=True)
    unpack_pyodide(cache, pyodide_dir)
    wheels = page_wheels(cache, staging / "dist")
    lock_path = pyodide_dir / "pyodide-lock.json"
    lock = json.loads(lock_path.read_text())
    lock["packages"] = {}
    for wheel in wheels:
        entry = lock_entry(wheel, OWN_EXTRA if wheel.name.startswith("gatewaykit-") else "")
        if entry["name"] in KERNEL_SHIMS:
            continue
        shutil.copy2(wheel, pyodide_dir / wheel.name)
        lock["packages"][entry["name"]] = entry
    for entry in lock["packages"].values():  # only what the site serves (the rest is on the CDN only)
        entry["depends"] = sorted(name for name in entry["depends"] if name in lock["packages"])
    lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True))
    shutil.copy2(HERE / "jupyter-lite.json", staging / "jupyter-lite.json")
    shutil.rmtree(output, ignore_errors=True)
    builder = Path(sys.executable).parent
    apps = [arg for app in APPS for arg in ("--apps", app)]
    run([str(builder / "jupyter"), "lite", "build", "--lite-dir", str(staging), "--output-dir", str(output),
         "--contents", str(HERE / "content"), "--no-sourcemaps", "--no-unused-shared-packages", *apps], cache,
        cwd=staging)


def unpack_pyodide(cache: Path, into: Path) -> None:
    """The ``pyodide`` npm package's files (the tarball is cached)."""
    tarballs = cache / "npm-packages"
    tarballs.mkdir(parents=True, exist_ok=True)
    name, version = PYODIDE_NPM.split("@")
    tarball = tarballs / f"{name}-{version}.tgz"
    if not tarball.exists():
        npm = shutil.which("npm")
        if npm is None:
            raise SystemExit("npm is needed for Pyodide (the `pyodide` npm package): apt-get install npm")
        run([npm, "pack", PYODIDE_NPM, "--pack-destination", str(tarballs), "--silent"], cache,
            stdout=subprocess.DEVNULL)
    into.mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        for member in archive.getmembers():
            path = Path(member.name)
            if not member.isfile() or path.name in NOT_SERVED or path.suffix in {".map", ".ts"}:
                continue
            target = into / path.relative_to("package")
            with archive.extractfile(member) as source:
                target.write_bytes(source.read())


def page_wheels(cache: Path, dist: Path) -> list[Path]:
    """gatewaykit's wheel (built from this tree) and every wheel the page needs, for Pyodide's platform."""
    run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps", "-w", str(dist),
         str(REPO)], cache)
    own = next(dist.glob("gatewaykit-*.whl"))
    wheels = cache / "wheels"
    target = ["--only-binary=:all:", "--platform", PYODIDE_PLATFORM, "--python-version", PYODIDE_PYTHON,
              "--implementation", "cp", "--abi", "cp314", "--abi", "abi3", "--abi", "none"]
    # what pip resolves for the page (nothing is installed; pip checks Requires-Python against its own Python
    # here, never the page's 3.14, so that check is left to the platform tags)
    report = dist / "resolved.json"
    run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--dry-run",
         "--ignore-installed", "--ignore-requires-python", "--target", str(dist / "unused"), "--report", str(report), *target,
         f"{own}[{OWN_EXTRA}]", *IN_PAGE], cache)
    resolved = json.loads(report.read_text())["install"]
    pins = [f"{item['metadata']['name']}=={item['metadata']['version']}" for item in resolved
            if item["metadata"]["name"] != "gatewaykit"]
    run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps", "-d",
         str(wheels), *target, *pins], cache)
    names = [item["download_info"]["url"].rsplit("/", 1)[-1] for item in resolved]
    return [own] + sorted(wheels / name for name in names if name != own.name)


def lock_entry(wheel: Path, extra: str = "") -> dict:
    """The wheel's ``pyodide-lock.json`` entry: its import names, and what it requires in the page (with
    ``extra``)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name, parse_wheel_filename

    name, version, _, _ = parse_wheel_filename(wheel.name)
    with zipfile.ZipFile(wheel) as archive:
        files = archive.namelist()
        info = next(f.split("/")[0] for f in files if f.endswith(".dist-info/METADATA"))
        metadata = email.parser.BytesParser().parsebytes(archive.read(f"{info}/METADATA"))
        top_level = f"{info}/top_level.txt"
        if top_level in files:
            imports = [line.strip() for line in archive.read(top_level).decode().splitlines() if line.strip()]
        else:
            imports = sorted({f.split("/")[0].removesuffix(".py") for f in files
                              if not f.split("/")[0].endswith((".dist-info", ".data"))
                              and (f.count("/") == 0 and f.endswith(".py") or f.endswith("/__init__.py"))})
    depends = set()
    for text in metadata.get_all("Requires-Dist") or []:
        requirement = Requirement(text)
        if requirement.marker is None or any(
                requirement.marker.evaluate({**PAGE_MARKERS, "extra": name}) for name in {"", extra}):
            depends.add(canonicalize_name(requirement.name))
    return {"name": canonicalize_name(name), "version": str(version), "file_name": wheel.name,
            "install_dir": "site", "package_type": "package", "imports": [i for i in imports if i.isidentifier()],
            "depends": sorted(depends), "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
            "unvendored_tests": False}


def size_of(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


if __name__ == "__main__":
    sys.exit(main())
