/// A ring buffer of the newest `capacity` elements, each numbered by a seq that is never reused, with the
/// count of those dropped to make room, and an index of the kept elements that are shown (those matching a
/// filter): the event log and the wire inspector keep their entries in one.
///
/// While every element is shown (no filter) the index is implicit; otherwise it holds the shown seqs in
/// ascending order and forgets those of dropped elements as it goes.
public struct BoundedRing<Element: Sendable>: Sendable {
    /// The most elements kept.
    public let capacity: Int
    private var ring: [Element?]
    /// The seq of the oldest element kept.
    public private(set) var firstSeq = 0
    /// The seq the next element gets.
    public private(set) var nextSeq = 0
    /// Whether every kept element is shown (no filter): the index is then implicit.
    public private(set) var showsAll = true
    private var shown: [Int] = []
    private var shownStart = 0

    /// An empty ring of `capacity` elements (at least 1). Its storage grows as elements arrive, up to `capacity`.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = []
    }

    /// The number of elements kept.
    public var count: Int { nextSeq - firstSeq }
    /// Elements dropped from the front because the ring was full.
    public var dropped: Int { firstSeq }

    /// Appends the element that `make` builds for the next seq, dropping the oldest when full; `isShown` says
    /// whether the index lists it (ignored while every element is shown). Returns the seq.
    @discardableResult
    public mutating func append(_ make: (Int) -> Element, isShown: (Element) -> Bool = { _ in true }) -> Int {
        let seq = nextSeq
        let element = make(seq)
        if count == capacity {
            firstSeq += 1
            if shownStart < shown.count, shown[shownStart] < firstSeq { shownStart += 1 }
        }
        if ring.count < capacity {
            ring.append(element)  // still growing: seq == ring.count
        } else {
            ring[seq % capacity] = element
        }
        nextSeq += 1
        if !showsAll, isShown(element) { shown.append(seq) }
        if shownStart > 4096, shownStart * 2 > shown.count {
            shown.removeFirst(shownStart)
            shownStart = 0
        }
        return seq
    }

    /// The element with a seq, if still kept.
    public func element(seq: Int) -> Element? {
        guard seq >= firstSeq, seq < nextSeq else { return nil }
        return ring[seq % capacity]
    }

    /// All kept elements, oldest first.
    public var elements: [Element] {
        (firstSeq..<nextSeq).compactMap { ring[$0 % capacity] }
    }

    /// Shows every element (`nil`) or those for which `isShown` holds, indexing the kept ones.
    public mutating func setShown(_ isShown: ((Element) -> Bool)?) {
        shown = []
        shownStart = 0
        guard let isShown else {
            showsAll = true
            return
        }
        showsAll = false
        for seq in firstSeq..<nextSeq where isShown(ring[seq % capacity]!) { shown.append(seq) }
    }

    /// The number of shown elements.
    public var shownCount: Int { showsAll ? count : shown.count - shownStart }

    /// The seq of the `i`th shown element (0 = oldest).
    public func shownSeq(at i: Int) -> Int { showsAll ? firstSeq + i : shown[shownStart + i] }

    /// The position among shown elements of the last one with a seq ≤ `seq`, or `nil` if none.
    public func shownIndex(atOrBefore seq: Int) -> Int? {
        if showsAll {
            guard seq >= firstSeq, count > 0 else { return nil }
            return min(seq, nextSeq - 1) - firstSeq
        }
        var lo = shownStart, hi = shown.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if shown[mid] <= seq { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1 >= shownStart ? lo - 1 - shownStart : nil
    }
}
