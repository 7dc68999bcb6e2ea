"""A native module stand-in: an executable Python script (no compiler needed) that does what a Rust sidecar does:
take ``--port N``, serve the module proto's ToolService on 127.0.0.1:N, print ``READY:N``, serve until stopped.
Its tool upper-cases ``text``, or with ``touch`` tries to create that file and says whether it could.
``hang=True`` makes one that never becomes ready (for the startup timeout)."""

from __future__ import annotations

import sys

SCRIPT = '''#!{python}
import sys, time, json
from concurrent import futures
port = int(sys.argv[sys.argv.index("--port") + 1])
if {hang}:
    time.sleep(60)
    sys.exit(0)
import grpc
from amplifier_core._grpc_gen import amplifier_module_pb2 as pb, amplifier_module_pb2_grpc as services

class Tool(services.ToolServiceServicer):
    def GetSpec(self, request, context):
        schema = {{"type": "object", "properties": {{"text": {{"type": "string"}}}}}}
        return pb.ToolSpec(name="native_upper", description="Upper-case the text (a native module)",
                           parameters_json=json.dumps(schema))
    def Execute(self, request, context):
        arguments = json.loads(request.input)
        if "touch" in arguments:  # try to write a file: what the sandbox allows the process
            try:
                open(arguments["touch"], "w").close()
                answer = "wrote " + arguments["touch"]
            except OSError as error:
                answer = "refused: " + str(error)
            return pb.ToolExecuteResponse(success=True, output=json.dumps(answer).encode(),
                                          content_type="application/json")
        text = arguments.get("text", "")
        return pb.ToolExecuteResponse(success=True, output=json.dumps(text.upper()).encode(),
                                      content_type="application/json")

server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
services.add_ToolServiceServicer_to_server(Tool(), server)
server.add_insecure_port(f"127.0.0.1:{{port}}")
server.start()
print(f"READY:{{port}}", flush=True)
server.wait_for_termination()
'''


def native_script(hang: bool = False) -> bytes:
    return SCRIPT.format(python=sys.executable, hang=hang).encode()
