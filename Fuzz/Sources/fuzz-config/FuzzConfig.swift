import CFuzzerDriver
import PushtopConfig

/// libFuzzer entry point: any bytes as the config file. Parsing gives a file or a ``ConfigError``, and every
/// profile it names can be resolved; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let file = try? ConfigFile.parse(text, path: "config.toml") else { return 0 }
    _ = try? file.profile(named: nil)
    for name in file.profiles.keys {
        _ = try? file.profile(named: name)
    }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): runs libFuzzer's driver on ``fuzzConfig(_:_:)``.
@_cdecl("fuzz_config_main")
func fuzzConfigMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzConfig(data, size) }
}
