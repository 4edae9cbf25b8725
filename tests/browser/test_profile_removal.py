"""`remove_tree`, which removes a Chromium profile with its unlinks spread over threads: it must
remove exactly what `shutil.rmtree` would, follow no symlink out of the tree, and never raise."""

from __future__ import annotations

import os
from pathlib import Path

from runtime.browser.launch.chromium_process import ChromiumProfile, remove_tree


def _profile_like_tree(root: Path) -> int:
    """Nested directories of small files, as a Chromium profile has; the number of files."""
    count = 0
    for a in range(4):
        for b in range(3):
            folder = root / f"Default-{a}" / f"leveldb-{b}"
            folder.mkdir(parents=True)
            for c in range(5):
                (folder / f"{c:06d}.log").write_bytes(b"x" * (c * 100))
                count += 1
    (root / "Local State").write_text("{}")
    (root / "empty dir" / "deeper").mkdir(parents=True)
    return count + 1


def test_remove_tree_removes_every_file_and_directory(tmp_path: Path) -> None:
    root = tmp_path / "profile"
    files = _profile_like_tree(root)
    assert sum(len(names) for _, _, names in os.walk(root)) == files == 61
    remove_tree(root)
    assert not root.exists()
    assert list(tmp_path.iterdir()) == []


def test_remove_tree_removes_symlinks_and_leaves_their_targets(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner" / "keep.txt").write_text("kept")
    (outside / "keep.txt").write_text("kept")
    root = tmp_path / "profile"
    _profile_like_tree(root)
    (root / "SingletonSocket").symlink_to(outside / "keep.txt")
    (root / "Default-0" / "linked dir").symlink_to(outside, target_is_directory=True)
    (root / "dangling").symlink_to(tmp_path / "nothing here")
    remove_tree(root)
    assert not root.exists() and not root.is_symlink()
    assert (outside / "keep.txt").read_text() == "kept"
    assert (outside / "inner" / "keep.txt").read_text() == "kept"


def test_remove_tree_of_a_missing_path_does_nothing(tmp_path: Path) -> None:
    remove_tree(tmp_path / "never made")
    assert list(tmp_path.iterdir()) == []


def test_a_profile_removes_its_directory(tmp_path: Path) -> None:
    profile = ChromiumProfile.create(tmp_path / "profiles")
    (profile.path / "Default").mkdir()
    (profile.path / "Default" / "Preferences").write_text("{}")
    profile.remove()
    assert not profile.path.exists()
    assert list((tmp_path / "profiles").iterdir()) == []
