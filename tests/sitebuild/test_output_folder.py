"""--out never destroys what the build did not make: refusals happen before any work, exit 2."""

from __future__ import annotations

import pytest

import build as build_cli
from sitebuild.errors import OutputRefused
from sitebuild.output import MARKER, REPO
from sitebuild.pipeline import build


def run_cli(capsys, *args) -> tuple[int, str]:
    code = build_cli.main(list(args))
    return code, capsys.readouterr().err


def test_a_folder_holding_a_user_file_is_refused_and_the_file_survives(tmp_path, capsys):
    out = tmp_path / "folder"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, err = run_cli(capsys, "--out", str(out))
    assert code == 2
    assert err.startswith(f"build failed: --out {out} holds files this build did not make (e.g. notes.txt)")
    assert "choose a new or empty folder" in err
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]  # no staging folder left behind


@pytest.mark.parametrize(
    "target,why",
    [
        (".", "holds the project itself"),
        ("..", "holds the project itself"),
        ("/", "is the root of the file system"),
        ("~", "is a home folder, or holds one"),
        ("site/out", "is inside the project's site/ folder"),
        ("sim", "is inside the project's sim/ folder"),
    ],
)
def test_folders_that_hold_the_project_or_its_inputs_are_refused(monkeypatch, capsys, target, why):
    monkeypatch.chdir(REPO)
    before = sorted(REPO.iterdir())
    code, err = run_cli(capsys, "--out", target)
    assert code == 2
    assert why in err
    assert sorted(REPO.iterdir()) == before


def test_a_file_is_refused(tmp_path, capsys):
    target = tmp_path / "page.html"
    target.write_text("<p>mine</p>")
    code, err = run_cli(capsys, "--out", str(target))
    assert code == 2 and "is a file, not a folder" in err
    assert target.read_text() == "<p>mine</p>"


def test_the_corpus_folder_is_refused(tmp_path, project):
    project.out = project.corpus / "site"
    with pytest.raises(OutputRefused, match="overlaps the input folder"):
        build(project)


def test_an_empty_folder_is_built_into_and_marked(tmp_path, project, build_memo):
    project.out.mkdir()
    build(project, build_memo)
    assert (project.out / MARKER).is_file()
    assert (project.out / "en" / "specdec" / "index.html").is_file()


def test_a_marked_folder_is_replaced_whole(previous_site, project, build_memo):
    project.out = previous_site
    (previous_site / "stale.txt").write_text("left by hand in a build's folder")
    build(project, build_memo)
    assert not (previous_site / "stale.txt").exists()
    assert (previous_site / MARKER).is_file()


def test_a_marker_is_what_makes_a_folder_replaceable(previous_site, project, build_memo):
    (previous_site / MARKER).unlink()
    project.out = previous_site
    with pytest.raises(OutputRefused, match="holds files this build did not make"):
        build(project, build_memo)
    assert (previous_site / "en" / "specdec" / "index.html").is_file()
