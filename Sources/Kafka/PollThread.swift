internal import CRDKafka
import Dispatch
import Foundation
import Synchronization

/// A dedicated thread that serves a client's callbacks with `rd_kafka_poll`, so they never run on
/// Swift's cooperative pool. Each poll blocks until an event arrives or a timeout passes: no spinning.
final class PollThread: Sendable {
    private let client: ClientHandle
    private let queue: QueueHandle
    private let isStopped = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    init(client: ClientHandle, name: String) {
        self.client = client
        self.queue = .main(of: client)
        let thread = Thread { [self] in
            while !isStopped.load(ordering: .acquiring) {
                rd_kafka_poll(client.pointer, 500)
            }
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the thread and waits for it to exit; idempotent.
    func stop() {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.wakeUp()
        finished.wait()
    }
}
