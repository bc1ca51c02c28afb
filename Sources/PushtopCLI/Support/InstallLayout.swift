import Foundation

/// Where an installed pushtop finds its files: `PREFIX/bin/pushtop` next to `PREFIX/share/pushtop/`
/// (themes in `share/pushtop/themes`), as `scripts/install` lays them out.
enum InstallLayout {
    /// `PREFIX/share/pushtop` for the running binary, when that folder exists.
    static var shareDirectory: String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [executable, Bundle.main.executableURL?.resolvingSymlinksInPath()].compactMap { $0 }
        for url in candidates {
            let share = url.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("share/pushtop").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: share, isDirectory: &isDirectory), isDirectory.boolValue {
                return share
            }
        }
        return nil
    }

    /// Tells the theme catalog about the installed themes (`PUSHTOP_SHARE_DIR`), unless the user set it.
    static func exportShareDirectory() {
        guard ProcessInfo.processInfo.environment["PUSHTOP_SHARE_DIR"] == nil, let shareDirectory else { return }
        setenv("PUSHTOP_SHARE_DIR", shareDirectory, 0)
    }
}
