import CFuzzerDriver
import Foundation
import HummingbirdCore

@testable import PusherProtocol
@testable import PushtopServer

/// libFuzzer entry point: the HTTP API's request verification, fed a request as text:
/// `METHOD URI` on the first line, then the body. The query is read as the server reads it (``URLQuery``: a query
/// that breaks its rule is a 400 and goes no further), the body as an auth endpoint's form (the same reader); a
/// request signed correctly over what was read must verify.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPI(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
    let requestLine = String(decoding: bytes[..<newline], as: UTF8.self)
    let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
    let parts = requestLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    let method = String(parts[0])
    let uri = URI(parts.count > 1 ? String(parts[1]) : "/")
    _ = try? URLQuery(String(decoding: body, as: UTF8.self))
    guard let query = try? URLQuery(uri.query ?? "") else { return 0 }
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let verifier = APIRequestVerifier(key: "pushtop-key", secret: "pushtop-secret")
    _ = try? verifier.verify(method: method, path: uri.path, query: query, body: body, now: now)

    // The same request signed as a Pusher server SDK would sign it must be accepted.
    var signed = query.dictionary
    signed["auth_key"] = "pushtop-key"
    signed["auth_timestamp"] = "1700000000"
    signed["auth_version"] = "1.0"
    signed.removeValue(forKey: "auth_signature")
    signed["body_md5"] = APIRequestSignature.bodyMD5(body)
    signed["auth_signature"] = APIRequestSignature.expectedSignature(
        method: method, path: uri.path, secret: "pushtop-secret", parameters: signed)
    do {
        let signedQuery = try URLQuery(pairs: signed.map { ($0.key, $0.value) })
        try verifier.verify(method: method, path: uri.path, query: signedQuery, body: body, now: now)
    } catch {
        fatalError("a correctly signed request was refused: \(error)")
    }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): runs libFuzzer's driver on ``fuzzAPI(_:_:)``.
@_cdecl("fuzz_api_main")
func fuzzApiMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzAPI(data, size) }
}
