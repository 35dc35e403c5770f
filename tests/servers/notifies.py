"""A server that sends a logging notification (and a request) before every tools/call answer."""

from mini import Message, answer_call, serve, write


def chatty(message: Message) -> None:
    write({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
    write({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
    answer_call(message)


serve(chatty)
