"""Live push: the websocket route and session (ws), the process's hub that fans commits out to its
sockets (hub), the text of every frame (frames), the messages' JSON Schema (ws_schema) and the
serialized socket writes (wssocket)."""
