"""Leaves a daemon behind: at start it forks a child that calls setsid (out of the server's process group)
and forks again; that grandchild keeps stdout and stderr open, says its pid on stderr and sleeps for ever. The
server itself answers properly. A harness ending only the server's group leaves the grandchild running."""

import os
import sys
import time

from mini import serve

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(2, f"daemon_child: grandchild {os.getpid()}\n".encode())
        while True:
            time.sleep(60)
    os._exit(0)
os.wait()
sys.stdout.flush()
serve()
