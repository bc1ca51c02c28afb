import CFuzzerDriver
import PusherProtocol

/// libFuzzer entry point: any bytes as one WebSocket text frame. A message that decodes must encode to a frame
/// that decodes to the same message; its data accessors must not trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let message = try? PusherMessage(decoding: text) else { return 0 }
    _ = message.dataText
    _ = message.dataJSON
    let encoded = message.jsonString
    guard let again = try? PusherMessage(decoding: encoded) else {
        fatalError("encoded message does not decode: \(encoded)")
    }
    guard again == message else { fatalError("message round trip changed it: \(text) -> \(encoded)") }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): runs libFuzzer's driver on ``fuzzMessage(_:_:)``.
@_cdecl("fuzz_message_main")
func fuzzMessageMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMessage(data, size) }
}
