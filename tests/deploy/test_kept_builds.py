"""Slow test builds kept between runs of the same code (tests/support/shared_build.kept): a second run copies the files
back instead of building, and a change to the code builds anew."""
import pytest

from tests.support import shared_build


@pytest.fixture
def source_tree(tmp_path, monkeypatch):
    """A repository of its own whose code the hash reads (so the test can change it)."""
    code = tmp_path / "repo" / "evaluator"
    code.mkdir(parents=True)
    (code / "model.py").write_text("WIDTH = 64\n")
    monkeypatch.setattr(shared_build, "KEPT_SOURCES", (str(code),))
    return code


def _builder(calls):
    def build(folder):
        def run():
            target = folder / "model.bin"
            if not target.exists():  # a kept build skips what is there, as demo_models_build does
                calls.append(folder)
                target.write_text(f"weights {len(calls)}")
            return target
        return run
    return build


def test_a_second_run_of_the_same_code_copies_the_files_and_builds_nothing(tmp_path, source_tree, monkeypatch):
    monkeypatch.setenv("TEST_BUILD_CACHE", str(tmp_path / "cache"))
    calls = []
    first, second = tmp_path / "run1", tmp_path / "run2"
    first.mkdir(), second.mkdir()
    assert shared_build.kept("m", first, _builder(calls)(first)).read_text() == "weights 1"
    assert shared_build.kept("m", second, _builder(calls)(second)).read_text() == "weights 1"
    assert calls == [first]

    (source_tree / "model.py").write_text("WIDTH = 128\n")  # other code: built again, not the old files
    third = tmp_path / "run3"
    third.mkdir()
    assert shared_build.kept("m", third, _builder(calls)(third)).read_text() == "weights 2"
    assert calls == [first, third]


def test_without_the_cache_setting_every_run_builds(tmp_path, source_tree, monkeypatch):
    monkeypatch.delenv("TEST_BUILD_CACHE", raising=False)
    calls = []
    for name in ("run1", "run2"):
        folder = tmp_path / name
        folder.mkdir()
        shared_build.kept("m", folder, _builder(calls)(folder))
    assert len(calls) == 2


def test_old_builds_are_pruned(tmp_path, source_tree, monkeypatch):
    monkeypatch.setenv("TEST_BUILD_CACHE", str(tmp_path / "cache"))
    calls = []
    for width in range(shared_build.KEEP_PER_NAME + 3):
        (source_tree / "model.py").write_text(f"WIDTH = {width}\n")
        folder = tmp_path / f"run{width}"
        folder.mkdir()
        shared_build.kept("m", folder, _builder(calls)(folder))
    assert len(list((tmp_path / "cache").glob("m-*"))) == shared_build.KEEP_PER_NAME + 1


def test_a_build_that_names_its_sources_and_inputs_is_kept_across_other_changes(tmp_path, source_tree, monkeypatch):
    """The demo models name the files they run and the questions they are trained on: a change elsewhere reuses
    them; a change to those files or to the questions trains anew."""
    monkeypatch.setenv("TEST_BUILD_CACHE", str(tmp_path / "cache"))
    (source_tree / "other.py").write_text("X = 1\n")
    sources = (str(source_tree / "model.py"),)
    calls = []

    def run(name, inputs=b"questions v1"):
        folder = tmp_path / name
        folder.mkdir()
        return shared_build.kept("m", folder, _builder(calls)(folder), sources=sources, inputs=inputs).read_text()

    assert run("run1") == "weights 1"
    (source_tree / "other.py").write_text("X = 2\n")  # not a source of the build: kept
    assert run("run2") == "weights 1"
    assert run("run3", inputs=b"questions v2") == "weights 2"  # other questions: trained again
    (source_tree / "model.py").write_text("WIDTH = 128\n")  # its own code: built again
    assert run("run4", inputs=b"questions v2") == "weights 3"
    assert len(calls) == 3
