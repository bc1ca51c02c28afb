import ArgumentParser

extension APIOptions {
    /// These options with what `--env-file` gives where no flag was given (the options have defaults, so the command
    /// line says which were given); says on stderr which file named the app.
    /// - Parameters:
    ///   - command: the command's name, for the stderr line (`pushtop trigger: …`).
    ///   - purpose: why the file must name key, secret and app id, for the error when it does not.
    func overlaid(by envFile: EnvFileOption, command: String, purpose: String) throws -> APIOptions {
        guard let file = try envFile.settings() else { return self }
        let flags = CommandLineFlags.given([
            "--app-id": "app_id", "--key": "key", "--secret": "secret",
            "--host": "host", "--port": "port", "--tls": "tls", "--cluster": "cluster",
        ])
        let f = try file.requiring(["key", "secret", "app_id"].filter { flags[$0] == nil }, for: purpose).profile
        StandardStreams.writeErr("pushtop \(command): \(EnvFileOption.describe(file, flags: flags))\n")
        var api = self
        if flags["app_id"] == nil, let v = f.appID { api.appID = v }
        if flags["key"] == nil, let v = f.key { api.key = v }
        if flags["secret"] == nil, let v = f.secret { api.secret = v }
        if flags["host"] == nil, let v = f.host { api.host = v }
        if flags["port"] == nil { api.port = f.port ?? (f.tls == true ? 443 : f.host != nil ? 80 : api.port) }
        if flags["tls"] == nil, let v = f.tls { api.tls = v }
        if flags["cluster"] == nil, f.host == nil, let v = f.cluster { api.cluster = v }
        return api
    }
}
