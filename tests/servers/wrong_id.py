"""Initializes properly, then answers tools/call with an id nobody asked for."""

from mini import Message, serve, write


def wrong(message: Message) -> None:
    write({"jsonrpc": "2.0", "id": message["id"] + 1000, "result": {"content": []}})


serve(wrong)
