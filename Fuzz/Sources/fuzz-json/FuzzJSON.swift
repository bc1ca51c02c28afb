import CFuzzerDriver
import PusherProtocol

/// libFuzzer entry point: any bytes as JSON text. A document that parses must write back to text that parses to
/// the same value, and writing must be stable (what `watch` prints is compared byte for byte).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let value = try? JSONValue(parsing: text) else { return 0 }
    let written = value.jsonString
    guard let again = try? JSONValue(parsing: written) else {
        fatalError("written JSON does not parse: \(written)")
    }
    guard again == value else { fatalError("JSON round trip changed the value: \(text) -> \(written)") }
    guard again.jsonString == written else { fatalError("JSON writing is not stable: \(written)") }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): runs libFuzzer's driver on ``fuzzJSON(_:_:)``.
@_cdecl("fuzz_json_main")
func fuzzJsonMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzJSON(data, size) }
}
