"""Regenerate amplifier_core/_grpc_gen/amplifier_module_pb2*.py from amplifier_module.proto (needs grpcio-tools).

The generated stubs are committed, so running amplifier needs only grpcio and protobuf."""

from __future__ import annotations

import sys
from pathlib import Path

GEN = Path(__file__).resolve().parents[1] / "amplifier_core" / "_grpc_gen"


def main() -> int:
    from grpc_tools import protoc

    status = protoc.main(["grpc_tools.protoc", f"-I{GEN}", f"--python_out={GEN}", f"--pyi_out={GEN}",
                          f"--grpc_python_out={GEN}", str(GEN / "amplifier_module.proto")])
    if status != 0:
        return status
    grpc_stub = GEN / "amplifier_module_pb2_grpc.py"
    # protoc writes a top-level import; the stubs live in a package
    text = grpc_stub.read_text(encoding="utf-8")
    grpc_stub.write_text(text.replace("import amplifier_module_pb2 as", "from . import amplifier_module_pb2 as"),
                         encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
