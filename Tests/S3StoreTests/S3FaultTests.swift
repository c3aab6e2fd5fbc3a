import Domain
import Foundation
import Registration
@testable import S3Store
@testable import TestSupport
import Testing

@Suite(.tags(.production)) struct S3FaultTests {
    @Test func serverErrorsAreRetriedUntilTheServerRecovers() throws {
        let (relay, configuration) = try relayedBucket()
        defer { relay.close() }
        let store = S3ObjectStore(configuration, retry: quickRetry)

        relay.inject([500, 503])
        try store.put([1, 2], key: "ProfileImages/a.jpg", contentType: "image/jpeg")
        #expect(relay.requests.count == 3)

        relay.inject([500, 502, 503])
        let error = #expect(throws: StoreError.self) { try store.get("ProfileImages/a.jpg") }
        #expect(error?.kind == .transient)
        #expect(error?.message.contains("HTTP 503") == true)

        // Recovered: the object stored before the outage is there.
        #expect(try store.get("ProfileImages/a.jpg") == [1, 2])
    }

    @Test(arguments: [400, 403, 409])
    func clientErrorsArePermanentAndNotRetried(status: Int) throws {
        let (relay, configuration) = try relayedBucket()
        defer { relay.close() }
        relay.inject([status])
        let error = #expect(throws: StoreError.self) {
            try S3ObjectStore(configuration, retry: quickRetry).put([1], key: "k", contentType: "text/plain")
        }
        #expect(error?.kind == .permanent)
        #expect(relay.requests.count == 1)
    }

    @Test func aServerThatIsDownIsTransientAndRecoveryIsSeen() throws {
        let moto = try MotoServer()
        let store = S3ObjectStore(try newBucket(on: moto.endpoint), retry: quickRetry)
        try store.put([1], key: "k", contentType: "text/plain")
        moto.stop()
        let error = #expect(throws: StoreError.self) { try store.contains("k") }
        #expect(error?.kind == .transient)
        try moto.start()
        // moto keeps nothing across restarts: the bucket is made again, and the store works again.
        try createBucket(store.configuration)
        #expect(try store.contains("k") == false)
        try store.put([2], key: "k", contentType: "text/plain")
        #expect(try store.get("k") == [2])
    }

    @Test func aMissingBucketIsPermanent() throws {
        let configuration = testConfiguration(bucket: "no-such-bucket-\(UUID().uuidString.lowercased())",
                                              endpoint: try MotoServer.shared().endpoint)
        let error = #expect(throws: StoreError.self) {
            try S3ObjectStore(configuration, retry: quickRetry).put([1], key: "k", contentType: "text/plain")
        }
        #expect(error?.kind == .permanent)
    }
}
