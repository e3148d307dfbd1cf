#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation

/// The delivery loop, on the outbox's serial `work` queue: take the folder's lock, send
/// the oldest entries (``OutboxOptions/width`` at a time), record each outcome on disk,
/// and let go of the lock when nothing is left or delivery is paused.
extension Outbox {
    /// Starts what can start now; arms a wake-up for what must wait.
    @_optimize(size)
    func pump() {
        do {
            try load()
        } catch {
            return reportStorage("cannot prepare the folder", entry: nil, error: error)
        }
        lock.lock()
        let isResumed = counts.resumed, idle = inFlight.isEmpty
        lock.unlock()
        guard isResumed else {
            if idle { releaseFolderLock() }
            return
        }
        if !holdsFolderLock {
            let acquired: Bool
            do {
                acquired = try tryAcquireFolderLock()
            } catch {
                reportStorage("cannot take the folder's lock, nothing is delivered", entry: nil, error: error)
                return wake(after: options.maxRetryDelay)
            }
            // Another outbox delivers: it will take the entries this one stored too, and
            // this one looks again later in case it stopped.
            guard acquired else {
                lock.lock()
                let waiting = queuedCount
                lock.unlock()
                if waiting > 0 { wake(after: options.lockRetryInterval) }
                return
            }
            // Another outbox may have delivered or added entries meanwhile.
            scan()
        }
        var rescanned = false
        while true {
            let now = Date()
            lock.lock()
            guard counts.resumed, inFlight.count < options.width else { return lock.unlock() }
            if let until = waitUntil {
                guard until <= now else {
                    // A backoff: the lock is let go meanwhile (another outbox may deliver; the
                    // wait is in the entry's file, so it waits too), taken again on waking.
                    let idle = inFlight.isEmpty
                    lock.unlock()
                    if idle { releaseFolderLock() }
                    return wake(after: until.timeIntervalSince(now))
                }
                waitUntil = nil
            }
            guard let name = takeNext() else {
                let idle = inFlight.isEmpty
                lock.unlock()
                guard idle else { return }
                // Nothing left that this outbox knows: look for entries others stored, once.
                guard rescanned else {
                    rescanned = true
                    scan()
                    continue
                }
                releaseFolderLock()
                return
            }
            lock.unlock()
            start(name, now: now)
        }
    }

    /// Reads entry `name` and sends it, or deals with what it found instead.
    @_optimize(size)
    private func start(_ name: String, now: Date) {
        // The host sends nothing for now (the retry engine of EasyNetworkRetry: a server's
        // Retry-After, an open circuit breaker): the entry waits with the rest, and the wait
        // is no attempt.
        if let pause = host.sendingPause, pause > 0 {
            return hold(name, until: now.addingTimeInterval(min(pause, options.maxRetryDelay)))
        }
        let bytes: [UInt8]
        do {
            guard let read = try read(name, in: pendingPath) else {
                // Gone: delivered or removed by another outbox on the folder.
                lock.lock()
                forget(name, size: 0)
                lock.unlock()
                return
            }
            bytes = read
        } catch {
            reportStorage("cannot read the entry, it is tried again later", entry: name, error: error)
            return hold(name, until: now.addingTimeInterval(max(1, options.retryDelay)))
        }
        let size = bytes.count
        guard let record = EntryRecord.decoding(bytes), record.id == name else { return setAside(name, size: size) }
        if now.timeIntervalSince(record.createdAt) > options.maxAge {
            return bury(record, size: size, error: nil, reason: "not delivered within maxAge", attempts: record.attempts, counted: record.countedAttempts)
        }
        if let notBefore = record.notBefore, notBefore > now {
            // A backoff from an earlier launch; a clock set back cannot make it longer than the longest.
            return hold(name, until: min(notBefore, now.addingTimeInterval(options.maxRetryDelay)))
        }
        // (It holds this outbox weakly: one let go meanwhile records nothing.)
        guard let operation = DeliveryOperation<Void>(record: record, size: size, outbox: self) else {
            return setAside(name, size: size)  // a method the library does not send
        }
        queue.addOperation(operation)
    }

    /// From the attempt of `record`: its outcome, recorded on `work`.
    @inline(never)
    @_optimize(size)
    func attemptEnded(_ record: EntryRecord, size: Int, _ error: NetworkError?) {
        QueueHop.async(work) { [self] in finished(record, size: size, error) }
    }

    /// On `work`: records how an attempt of `record` ended, then goes on.
    @_optimize(size)
    private func finished(_ record: EntryRecord, size: Int, _ error: NetworkError?) {
        let last = error?.errorDescription ?? "failed"
        switch DeliveryVerdict.judge(error) {
        case .delivered:
            if !remove(record.id, in: pendingPath) {
                report(.storage, record.id, "delivered, but its file could not be removed: it may be sent again (same idempotency key)")
            }
            lock.lock()
            forget(record.id, size: size)
            let callback = callbacks.delivered
            lock.unlock()
            callBack(callback, record)
        case .notSent:
            // No attempt: no backoff; a delivery the host refused waits for its pause, as in `start`.
            let pause = min(host.sendingPause ?? 0, options.maxRetryDelay)
            hold(record.id, until: Date().addingTimeInterval(max(options.retryDelay, pause)))
        case .retry(let counted):
            let attempts = record.attempts + 1, counted = record.countedAttempts + (counted ? 1 : 0)
            let now = Date()
            if counted >= options.maxAttempts || now.timeIntervalSince(record.createdAt) > options.maxAge {
                let limit = counted >= options.maxAttempts ? "failed maxAttempts times, the last: " : "not delivered within maxAge, the last attempt: "
                bury(record, size: size, error: error, reason: limit + last, attempts: attempts, counted: counted)
            } else {
                let until = now.addingTimeInterval(DeliveryVerdict.delay(after: attempts, error: error, options: options))
                let next = record.encoded(
                    attempts: attempts, countedAttempts: counted, notBefore: until, createdAt: nil, statusCode: 0, reason: "", responseBody: Data(), endedAt: nil
                )
                rewrite(next, id: record.id, size: size)
                hold(record.id, until: until)
            }
        case .final:
            bury(record, size: size, error: error, reason: last, attempts: record.attempts, counted: record.countedAttempts)
        }
        pump()
    }

    /// Entry `name` waits again, and so does the whole outbox until `until`: an answer
    /// worth a retry is usually about the server, not the entry, and the entry keeps its place.
    /// The wait is at least 50 ms: one of 0 (`retryDelay` or `maxRetryDelay` 0, a delivery
    /// refused while the breaker's probe is out) would take the entry back at once, in a loop.
    @inline(never)
    @_optimize(size)
    private func hold(_ name: String, until: Date) {
        let until = max(until, Date().addingTimeInterval(0.05))
        lock.lock()
        putBack(name)
        waitUntil = max(waitUntil ?? until, until)
        lock.unlock()
    }

    /// Stores the new attempt count and wait of an entry (replacing its file atomically).
    @_optimize(size)
    private func rewrite(_ bytes: [UInt8], id: String, size: Int) {
        do {
            try write(bytes, id: id, to: pendingPath)
            lock.lock()
            grow(bytes.count - size)
            lock.unlock()
        } catch {
            reportStorage("cannot record the failed attempt (the entry is kept)", entry: id, error: error)
        }
    }

    /// Makes `record` a dead letter: written to `dead/` first, then removed from
    /// `pending/`, then reported. When the letter cannot be written the entry stays.
    @inline(never)
    @_optimize(size)
    private func bury(_ record: EntryRecord, size: Int, error: NetworkError?, reason: String, attempts: Int, counted: Int) {
        let body = error?.data ?? Data()
        let bytes = record.encoded(
            attempts: attempts, countedAttempts: counted, notBefore: nil, createdAt: nil, statusCode: error?.statusCode ?? 0, reason: reason,
            responseBody: body.count > 64 * 1024 ? body.subdata(in: 0..<64 * 1024) : body, endedAt: Date()
        )
        do {
            try write(bytes, id: record.id, to: deadPath)
        } catch {
            reportStorage("cannot write the dead letter (the entry is kept and tried again)", entry: record.id, error: error)
            return hold(record.id, until: Date().addingTimeInterval(options.maxRetryDelay))
        }
        remove(record.id, in: pendingPath)
        lock.lock()
        forget(record.id, size: size)
        addDead(record.id, size: bytes.count)
        let callback = callbacks.deadLetter
        lock.unlock()
        callBack(callback, EntryRecord.decoding(bytes))  // the letter as written
    }

    /// Hands `record`, as an entry, to `callback` on the callback queue (one closure for
    /// the delivered entries and the dead letters).
    @inline(never)
    private func callBack(_ callback: (@Sendable (OutboxEntry) -> Void)?, _ record: EntryRecord?) {
        guard let callback, let record else { return }
        let entry = OutboxEntry(record: record)
        QueueHop.async(host.callbackQueue) { callback(entry) }
    }

    /// Moves a damaged entry file aside and reports it.
    @_optimize(size)
    private func setAside(_ name: String, size: Int) {
        let moved = moveAside(name)
        lock.lock()
        forget(name, size: size)
        lock.unlock()
        report(.corruptFile, name, file: moved, moved == nil ? "torn or damaged (bad checksum or format), removed" : "torn or damaged (bad checksum or format), set aside")
    }

    /// Calls ``pump()`` after `delay` seconds, unless an earlier wake-up is armed.
    @inline(never)
    @_optimize(size)
    private func wake(after delay: TimeInterval) {
        let at = Date().addingTimeInterval(max(0, delay))
        lock.lock()
        if let armed = wakeAt, armed <= at {
            return lock.unlock()
        }
        wakeAt = at
        counts.wakeGeneration += 1
        let generation = counts.wakeGeneration
        lock.unlock()
        work.asyncAfter(deadline: .now() + max(0, delay)) { [weak self] in
            guard let self else { return }
            lock.lock()
            let current = counts.wakeGeneration == generation
            if current { wakeAt = nil }
            lock.unlock()
            if current { pump() }
        }
    }
}
