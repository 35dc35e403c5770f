"""Serves (pretends to serve) MCP over HTTP: listens on a TCP port of 127.0.0.1 and never answers on stdout,
as an HTTP-only fork of npm:0.6.2 (Express, "running on http://127.0.0.1:3000" on stderr) or a port whose
framework's default transport is HTTP does.

--said: writes "… running on http://127.0.0.1:PORT" to stderr once listening (the Express fork).
--stdout: first prints a start line to stdout, then stays silent on stderr (a port printing its banner).
--child: the listening socket is held by a child process, as under a launcher (npx, uv run).
--v6: listens on ::1 instead.
--stdio: also answers on stdio (initialize, and tools/list offering another tool): a stdio server with a
dashboard of its own on HTTP, which is no server of HTTP alone.
--inspect=HOST:PORT: listens there as node's inspector does under `node --inspect=HOST:PORT` and answers
nothing (a stdio server too slow to answer, paused under its debugger); --inspect-said: as `node --inspect=0`,
on a port of the system's choice, said on stderr as node says it ("Debugger listening on ws://…").
Neither --said nor --stdout: listens and writes nothing at all.
"""

import json
import socket
import subprocess
import sys

if "--child" in sys.argv:
    args = [a for a in sys.argv[1:] if a != "--child"]
    child = subprocess.Popen([sys.executable, __file__, *args])
    child.wait()
    sys.exit(0)
if "--stdout" in sys.argv:
    sys.stdout.write("Sequential Thinking 服务启动中 (transport: http)\n")
    sys.stdout.flush()
family, host = (socket.AF_INET6, "::1") if "--v6" in sys.argv else (socket.AF_INET, "127.0.0.1")
inspect = next((a.split(":")[-1] for a in sys.argv if a.startswith("--inspect=")), "0")
server = socket.socket(family, socket.SOCK_STREAM)
server.bind((host, int(inspect)))
server.listen(1)
port = server.getsockname()[1]
if "--inspect-said" in sys.argv:
    sys.stderr.write(f"Debugger listening on ws://{host}:{port}/3f0c9a52-5b0e-4f43-9d27-1c2b3a4d5e6f\n"
                     "For help, see: https://nodejs.org/en/docs/inspector\n")
    sys.stderr.flush()
if "--said" in sys.argv:
    sys.stderr.write(f"Sequential Thinking MCP Server (Streamable HTTP) running on http://{host}:{port}\n"
                     f"MCP endpoint: http://{host}:{port}/mcp\nTest interface: http://{host}:{port}/\n"
                     "Allowed origins: http://localhost:3000\n")
    sys.stderr.flush()
for line in sys.stdin.buffer:
    if "--stdio" not in sys.argv:
        continue
    message = json.loads(line)
    if "id" not in message:
        continue
    result = ({"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
               "serverInfo": {"name": "dashboard", "version": "1.0.0"}}
              if message.get("method") == "initialize"
              else {"tools": [{"name": "think_step", "inputSchema": {"type": "object", "properties": {}}}]})
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
