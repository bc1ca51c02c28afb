"""The audit: from what the sessions received and when the faults happened, counts every violation of the
cluster's promises (lost, duplicated or reordered events; ghosts and missing members; wrong API counts)."""
import bisect
from collections import Counter, defaultdict


class Faults:
    """When each node was impaired (killed until ready again, or cut from Redis until resynchronised)."""

    def __init__(self):
        self.intervals = defaultdict(list)  # node -> [(start, end, kind)]
        self.log = []  # (kind, node, start, end, detail)

    def add(self, node, start, end, kind, detail=""):
        self.intervals[node].append((start, end, kind))
        self.log.append((kind, node, start, end, detail))

    def impaired(self, node, start, end):
        return any(a < end and start < b for a, b, _ in self.intervals[node])


class Report:
    def __init__(self):
        self.violations = defaultdict(list)
        self.figures = {}

    def violation(self, kind, detail):
        self.violations[kind].append(detail)

    def count(self, kind):
        return len(self.violations[kind])


def audit_deliveries(sessions, events, faults, report, before=1.0, after=2.0):
    """Every acknowledged event reaches, exactly once, every session subscribed before it was sent and still
    connected `after` seconds after it was acknowledged, unless the publishing node or the session's node was
    impaired from `before` seconds before the send to `after` seconds after the acknowledgement. Ticks of one
    publisher through one node arrive in order; ticks of one publisher through different nodes are only counted
    when they arrive out of order (the HTTP API replies once the event is queued for the other nodes)."""
    events = sorted((e for e in events if e.ok), key=lambda e: e.sent)
    sent_times = [e.sent for e in events]
    nodes = {s.node for s in sessions} | {e.node for e in events}
    impaired = {node: [faults.impaired(node, e.sent - before, e.acked + after) for e in events] for node in nodes}
    required = received = lost = duplicated = disorder = crossed = 0
    for session in sessions:
        counts = Counter((p, s) for p, s, _, _ in session.ticks)
        for (p, s), n in counts.items():
            if n > 1:
                duplicated += n - 1
                report.violation("duplicated", f"session {session.user_id} (node {session.node}) got "
                                               f"publisher {p} seq {s} {n} times")
        last_via = {}
        last_any = {}
        for p, s, n, at in session.ticks:
            if (p, n) in last_via and s <= last_via[(p, n)]:
                if counts[(p, s)] == 1:
                    disorder += 1
                    report.violation("out of order", f"session {session.user_id}: publisher {p} through node {n}: "
                                                     f"seq {s} after {last_via[(p, n)]}")
            elif p in last_any and s < last_any[p]:
                crossed += 1
            last_via[(p, n)] = max(s, last_via.get((p, n), -1))
            last_any[p] = max(s, last_any.get(p, -1))
        if session.subscribed is None:
            continue
        first = bisect.bisect_right(sent_times, session.subscribed)
        got = set(counts)
        for i in range(first, len(events)):
            event = events[i]
            if session.closed is not None and event.acked + after >= session.closed:
                break
            if impaired[event.node][i] or impaired[session.node][i]:
                continue
            required += 1
            if (event.publisher, event.seq) in got:
                received += 1
            else:
                lost += 1
                report.violation("lost", f"session {session.user_id} (node {session.node}, subscribed "
                                         f"{session.subscribed:.3f}) missed publisher {event.publisher} seq "
                                         f"{event.seq} through node {event.node} (sent {event.sent:.3f})")
    report.figures.update(required=required, received=received, lost=lost, duplicated=duplicated,
                          disorder=disorder, crossed=crossed)


def audit_quiet_point(sessions, at, report, label, margin=1.0):
    """At a quiet moment, every session's roster is the set of members connected then: nobody who left (a ghost),
    nobody missing. Sessions that joined or left within `margin` of `at` may be in a roster or not."""
    by_channel = defaultdict(list)
    for session in sessions:
        if session.subscribed is not None:
            by_channel[session.channel].append(session)
    checked = 0
    for channel, members in by_channel.items():
        must = {s.user_id for s in members if s.subscribed < at - margin and (s.closed is None or s.closed > at + margin)}
        may = {s.user_id for s in members if s.subscribed < at + margin and (s.closed is None or s.closed > at - margin)}
        for session in members:
            if not (session.subscribed < at - margin and (session.closed is None or session.closed > at + margin)):
                continue
            roster = session.roster(until=at)
            checked += 1
            for ghost in sorted(roster - may):
                report.violation("ghost", f"{label}: {session.user_id} (node {session.node}) still lists {ghost}")
            for missing in sorted(must - roster):
                report.violation("missing member", f"{label}: {session.user_id} (node {session.node}) lacks {missing}")
    report.figures["rosters checked"] = report.figures.get("rosters checked", 0) + checked


def audit_kill_removals(sessions, faults, bound, report):
    """After a SIGKILL, every session elsewhere that knew a killed connection's member gets `member_removed` for
    it within `bound` seconds. Returns the removal delays (seconds)."""
    delays = []
    for kind, node, killed_at, _, _ in faults.log:
        if kind != "kill":
            continue
        victims = [s for s in sessions if s.node == node and s.subscribed is not None and s.subscribed < killed_at
                   and s.closed is not None and killed_at - 0.5 <= s.closed <= killed_at + 3]
        for observer in sessions:
            if observer.node == node or observer.subscribed is None or observer.subscribed >= killed_at:
                continue
            if observer.closed is not None and observer.closed < killed_at + bound:
                continue
            others = [f for f in faults.intervals[observer.node] if f[0] < killed_at + bound and killed_at < f[1]]
            if others:
                continue
            known = observer.roster(until=killed_at)
            with observer.lock:
                log = list(observer.member_log)
            for victim in victims:
                if victim.channel != observer.channel or victim.user_id not in known:
                    continue
                removed = next((at for at, change, user in log
                                if user == victim.user_id and change == "removed" and at >= killed_at - 0.5), None)
                if removed is None or removed > killed_at + bound:
                    report.violation("ghost", f"kill of node {node} at {killed_at:.3f}: {observer.user_id} got no "
                                              f"member_removed for {victim.user_id} within {bound:.1f} s")
                else:
                    delays.append(removed - killed_at)
    return delays
