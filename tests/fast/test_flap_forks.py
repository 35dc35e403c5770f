"""The flap benchmark takes any modified server by its catalogue id (a set written blind this round, say),
not only the forks it names, and refuses a name that is neither before measuring anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.flap import FORKS, build, main
from tests.modified_servers.servers import load_modifications


def test_a_catalogue_id_builds_that_modification(tmp_path: Path) -> None:
    named = {i for ids in FORKS.values() for i in ids}
    unnamed = [m for m in load_modifications()
               if m.id not in named and m.source == "npm:0.6.2" and m.patches]
    assert unnamed, "every catalogue entry is named by a fork: nothing to check"
    mod = unnamed[-1]
    script = Path(build(mod.id, tmp_path).split()[-1])
    assert mod.patches[0].replace in script.read_text(encoding="utf-8")
    manifest = json.loads((script.parent / "package.json").read_text(encoding="utf-8"))
    assert manifest["name"] == f"modified-{mod.id}"


def test_a_name_that_is_neither_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main(["--forks", "fork-nobody-wrote", "--out", str(tmp_path)])
    assert ended.value.code == 2
    assert "unknown forks: fork-nobody-wrote" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
