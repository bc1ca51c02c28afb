import CFuzzerDriver
import PushtopDashboard

/// libFuzzer entry point: any bytes as a theme file. Parsing either gives a theme or a ``ThemeError``; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTheme(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    if let theme = try? ThemeParser.parse(text, source: "fuzz.toml") {
        _ = theme
    }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): runs libFuzzer's driver on ``fuzzTheme(_:_:)``.
@_cdecl("fuzz_theme_main")
func fuzzThemeMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzTheme(data, size) }
}
