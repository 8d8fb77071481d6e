"""What a file is to the workspace, by its path alone: the one rule that decides whether a
path is source, tests, documentation (with examples and benchmarks), vendored or generated.
The symbol map leaves vendored and generated code out (`generated`), a cold build parses
source first (`build_order`), and retrieval ranks source above tests above the rest
(`lookup.file_weight`): each asks `role_of`, so they cannot disagree about a path.

- **vendored**: under a folder named `vendored`, `_vendor`, `third_party` or `thirdparty`,
  or under the workspace's top-level `vendor` (where Go, PHP and Ruby put other projects; an
  app's own `shop/vendor/` package is its code);
- **generated**: under a folder named `generated` or `__generated__`, or named like a
  generator's output (`_pb2.py`, `.pb.go`, `.g.dart`, `.designer.cs`…);
- **tests**: under a folder named `test`, `tests`, `testing`, `spec`, `specs` or
  `__tests__`, or named `test_*`, `*_test.*`, `*.test.*`, `*_spec.*`, `*.spec.*` or
  `conftest.*`;
- **documentation**: under a folder named `docs`, `doc`, `examples`, `example`, `samples`,
  `benchmarks` or `bench`;
- **source**: anything else.

The first that applies decides (a test inside a vendored project is vendored)."""

from __future__ import annotations

from enum import Enum
from functools import lru_cache


class FileRole(Enum):
    """What a file is to the workspace (`role_of`)."""

    SOURCE = "source"
    TESTS = "tests"
    DOCS = "documentation"
    VENDORED = "vendored"
    GENERATED = "generated"


VENDOR_DIRS = frozenset({"vendored", "_vendor", "third_party", "thirdparty"})
TOP_VENDOR_DIR = "vendor"
GENERATED_DIRS = frozenset({"generated", "__generated__"})
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".pb.cc", ".pb.h",
                      ".pb.c", ".g.dart", ".freezed.dart", ".designer.cs", ".g.cs")
TEST_DIRS = frozenset({"test", "tests", "testing", "spec", "specs", "__tests__"})
TEST_STEM_ENDINGS = ("_test", ".test", "_spec", ".spec")
DOC_DIRS = frozenset({"docs", "doc", "examples", "example", "samples", "benchmarks", "bench"})


@lru_cache(maxsize=1 << 16)  # asked for every definition a request's words match
def role_of(rel: str) -> FileRole:
    """The role of the file at workspace-relative path `rel` (`/`-separated)."""
    parts = rel.lower().split("/")
    folders, name = parts[:-1], parts[-1]
    if any(folder in VENDOR_DIRS for folder in folders) or folders[:1] == [TOP_VENDOR_DIR]:
        return FileRole.VENDORED
    if any(folder in GENERATED_DIRS for folder in folders) or name.endswith(GENERATED_SUFFIXES):
        return FileRole.GENERATED
    stem = name.rsplit(".", 1)[0]
    if any(folder in TEST_DIRS for folder in folders) or name.startswith("test_") \
            or stem.endswith(TEST_STEM_ENDINGS) or stem == "conftest":
        return FileRole.TESTS
    if any(folder in DOC_DIRS for folder in folders):
        return FileRole.DOCS
    return FileRole.SOURCE
