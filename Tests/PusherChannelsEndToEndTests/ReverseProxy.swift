import Foundation
import PushtopTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// nginx on a free loopback port with one `location` proxied, WebSocket upgrade included, to an upstream port.
final class ReverseProxy: Sendable {
    let port: Int
    private let process: Process
    private let directory: URL

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static var executable: String? {
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx", "/opt/homebrew/bin/nginx"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static var isAvailable: Bool { executable != nil }

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static func start(location: String, upstreamPort: Int) async throws -> ReverseProxy {
        guard let executable else { throw Failure(description: "nginx is not installed") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushtop-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freeLocalPort()
        let path = directory.path
        let configuration = """
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location \(location) {
                        proxy_pass http://127.0.0.1:\(upstreamPort)/;
                        proxy_http_version 1.1;
                        proxy_set_header Upgrade $http_upgrade;
                        proxy_set_header Connection "upgrade";
                        proxy_set_header Host $host;
                        proxy_read_timeout 120s;
                    }
                    location / { return 404; }
                }
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-p", path, "-c", "\(path)/nginx.conf", "-g", "daemon off;"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let proxy = ReverseProxy(port: port, process: process, directory: directory)
        do {
            try await waitUntil("nginx listening on \(port)") {
                guard process.isRunning else {
                    let log = (try? String(contentsOfFile: "\(path)/error.log", encoding: .utf8)) ?? ""
                    throw Failure(description: "nginx exited: \(log)")
                }
                guard let socket = try? RawSocket(port: port, timeout: 1) else { return false }
                socket.close()
                return true
            }
        } catch {
            proxy.stop()
            throw error
        }
        return proxy
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGQUIT)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
