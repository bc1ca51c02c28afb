// The protocol values (JSONValue, ClientEvent, ChannelName, ...) are part of the client library API.
@_exported import PusherProtocol
