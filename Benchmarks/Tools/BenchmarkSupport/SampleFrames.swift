/// The frames every benchmark uses, so that figures compare across tools.
public enum SampleFrames {
    /// A typical channel event: about 130 bytes, its `data` a JSON-encoded string, as Pusher sends it.
    public static let event =
        #"{"event":"price-update","channel":"ticker","data":"{\"symbol\":\"ACME\",\"price\":101.25,\"volume\":1200,\"ts\":1732190000123}"}"#
    /// The same event's data, as a publisher hands it to the server.
    public static let eventData = #"{"symbol":"ACME","price":101.25,"volume":1200,"ts":1732190000123}"#
}
