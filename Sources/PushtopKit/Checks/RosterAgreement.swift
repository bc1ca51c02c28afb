/// Decides which members two views of one roster truly disagree on, when one view (the *local* roster, kept
/// up to date by member events) keeps changing while a question to the other (a *remote* answer, such as the
/// HTTP API's list of a presence channel's users, or another server node's roster) is in flight.
///
/// Comparing the local roster as it is *now* with an answer computed some time ago reads every join and leave
/// in between as a difference. This type compares like with like and confirms before it accuses:
///
/// 1. **Like with like.** Between ``requestSent()`` and ``answered(remote:local:)`` every member event the
///    local side sees is noted (``memberChanged(_:)``). Those members are *discounted*: the remote answer was
///    computed at some unknown moment in that window, so for them either answer may be right. For every other
///    member the local roster did not change during the window, so the local roster at answer time equals
///    the local roster at the moment the remote computed its answer.
/// 2. **Confirm before accusing.** A remaining difference is only a *suspect*: a member event the remote had
///    already applied may still be on its way to the local side. A suspect becomes a confirmed difference when
///    the next answer shows it again *and* no member event about it arrived from the first request to the
///    second answer. A delayed event arrives within that span (the span is at least the time between two
///    requests), so it discounts the member instead of confirming it.
///
/// The rule raises no false alarm under churn: a member who joins or leaves, however often, is discounted
/// in every window where that happens; one whose state did not change on either side for a whole span agrees
/// in both answers. A real difference (a ghost that the remote lost without a leave event ever reaching the
/// local side, or a member the local side never heard join) shows on the second answer after it arose, with
/// no event to discount it. The price: a member who churns continuously cannot be judged at all, which the
/// ``Verdict`` reports as agreement for the rest.
///
/// The type is pure (no clock, no I/O) and generic over the member's identity.
public struct RosterAgreement<Member: Hashable & Sendable>: Sendable, Equatable {
    /// What the last answer says about the two views.
    public enum Verdict: Sendable, Equatable {
        /// No answer yet.
        case unknown
        /// The undiscounted members agree.
        case agree
        /// Some members differ once, not yet confirmed by the next answer: the title may say `checking`.
        case checking(suspects: Int)
        /// Confirmed differences: ``ghosts`` are held locally only, ``missing`` are held remotely only.
        case differ(ghosts: Set<Member>, missing: Set<Member>)
    }

    /// The last answer's verdict.
    public private(set) var verdict: Verdict = .unknown
    /// Confirmed members held locally that the remote lacks.
    public private(set) var ghosts: Set<Member> = []
    /// Confirmed members held remotely that the local side lacks.
    public private(set) var missing: Set<Member> = []
    /// Local-only members seen in the last answer, not (yet) confirmed.
    public private(set) var suspectGhosts: Set<Member> = []
    /// Remote-only members seen in the last answer, not (yet) confirmed.
    public private(set) var suspectMissing: Set<Member> = []
    /// Whether a request was sent and its answer has not come.
    public private(set) var isAwaitingAnswer = false

    /// Members with a local event since the request in flight was sent.
    private var changedSinceRequest: Set<Member> = []
    /// Members with a local event since the request of the last answer was sent (the confirmation span).
    private var changedSinceLastRequest: Set<Member> = []

    public init() {}

    /// A request for the remote roster is sent now.
    public mutating func requestSent() {
        isAwaitingAnswer = true
        changedSinceRequest = []
    }

    /// A member event on the local side (joined, left, or changed): the member is discounted in the current
    /// request's window and in the confirmation span.
    public mutating func memberChanged(_ member: Member) {
        changedSinceRequest.insert(member)
        changedSinceLastRequest.insert(member)
    }

    /// The remote answered the request in flight with its roster; `local` is the local roster now (with every
    /// event up to now passed to ``memberChanged(_:)``). An answer with no request in flight (e.g. replayed)
    /// is judged as if it had been requested just now.
    public mutating func answered(remote: Set<Member>, local: Set<Member>) {
        if !isAwaitingAnswer { changedSinceRequest = [] }
        let ghostsNow = local.subtracting(remote).subtracting(changedSinceRequest)
        let missingNow = remote.subtracting(local).subtracting(changedSinceRequest)
        // Confirmed: a suspect in the previous answer too, with no event about it since that answer's request.
        let previousGhosts = suspectGhosts.union(ghosts), previousMissing = suspectMissing.union(missing)
        ghosts = ghostsNow.intersection(previousGhosts).subtracting(changedSinceLastRequest)
        missing = missingNow.intersection(previousMissing).subtracting(changedSinceLastRequest)
        suspectGhosts = ghostsNow.subtracting(ghosts)
        suspectMissing = missingNow.subtracting(missing)
        changedSinceLastRequest = changedSinceRequest
        changedSinceRequest = []
        isAwaitingAnswer = false
        if !ghosts.isEmpty || !missing.isEmpty {
            verdict = .differ(ghosts: ghosts, missing: missing)
        } else if !suspectGhosts.isEmpty || !suspectMissing.isEmpty {
            verdict = .checking(suspects: suspectGhosts.count + suspectMissing.count)
        } else {
            verdict = .agree
        }
    }

    /// The request in flight failed: the verdict stays, and the next answer is confirmed against the last one.
    public mutating func requestFailed() {
        isAwaitingAnswer = false
        changedSinceRequest = []
    }

    /// The local roster was rebuilt from scratch (resubscribed, reconnected): everything starts over.
    public mutating func reset() {
        self = RosterAgreement()
    }

    /// Whether unconfirmed differences wait for the next answer (a caller may ask again sooner).
    public var hasSuspects: Bool { !suspectGhosts.isEmpty || !suspectMissing.isEmpty }
}
