/// An answer of Redis that the hub must hear, handed on by the backplane's task in the order Redis gave it (no task
/// per answer).
enum ClusterReply: Sendable {
    /// The cluster's answer to a presence subscription (``PusherHub/clusterJoined(channel:socketID:answer:)``).
    case joined(channel: String, socketID: String, answer: ClusterJoinAnswer)
    /// The watched users online anywhere, for a connection that signed in
    /// (``PusherHub/clusterSignedIn(socketID:online:)``).
    case signedIn(socketID: String, online: [String])
}
