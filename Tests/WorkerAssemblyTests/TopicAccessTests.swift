import Domain
import Foundation
import Support
@testable import TestSupport
import Testing
@testable import WorkerAssembly

/// The ACLs `registrar topics acls` prints: derived from the routing tables and the event types' producers,
/// each principal gets only what its role needs.
@Suite(.tags(.unit)) struct TopicAccessTests {
    @Test func theDeclaredStepsAreTheStepsEachStackRoutesTo() throws {
        let built = try withTemporaryDirectory { data in try RunnableWorkers.all.map { try Self.routes($0, data) } }
        #expect(RunnableWorkers.all.map { $0.name } == TopicAccess.workers.map { $0.name })
        #expect(built == TopicAccess.workers.map(TopicAccess.routes))
    }

    @Test func eachWorkerWritesOnlyWhatItsRoleProduces() {
        let image = TopicAccess.worker(ImageWorker.self)
        #expect(image.reads == [Topic.imageCommands])
        #expect(image.writes == [Topic.registrationReplies, Topic.accountReplies, Topic.deadLetters(of: Topic.imageCommands)])
        #expect(image.group == "image-worker")
        let profile = TopicAccess.worker(ProfileWorker.self)
        #expect(profile.reads == [Topic.profileCommands])
        #expect(profile.writes == [Topic.registrationReplies, Topic.accountReplies, Topic.accountEvents, Topic.deadLetters(of: Topic.profileCommands)])
        let code = TopicAccess.worker(CodeDispatchWorker.self)
        #expect(code.writes == [Topic.codeOutcomes, Topic.deadLetters(of: Topic.codeRequests)])
        // Only the account worker commands the image and profile workers.
        for kind in TopicAccess.workers where kind != AccountWorker.self {
            #expect(TopicAccess.worker(kind).writes.isDisjoint(with: [Topic.imageCommands, Topic.profileCommands]), "\(kind.name)")
        }
    }

    /// `account.events` is written by the roles that announce on it (from their stores' outboxes) and read by the events
    /// consumer alone, in its own group; no worker reads it, no client reads or writes it.
    @Test func theEventsConsumerReadsOnlyAccountEventsAndOnlyTheAnnouncingRolesWriteThem() {
        let consumer = TopicAccess.eventsConsumer(named: "User:registrar-events", group: "registrar-events")
        #expect(consumer.reads == [Topic.accountEvents])
        #expect(consumer.writes.isEmpty)
        #expect(consumer.group == "registrar-events")
        let accesses = TopicAccess.workers.map(TopicAccess.worker)
        let writers = Set(accesses.filter { $0.writes.contains(Topic.accountEvents) }.map(\.principal))
        #expect(writers == ["account-worker", "profile-worker"])
        #expect(accesses.allSatisfy { !$0.reads.contains(Topic.accountEvents) })
        let client = TopicAccess.client(named: "c")
        #expect(!client.reads.union(client.writes).contains(Topic.accountEvents))
    }

    @Test func clientsWriteOnlyRequestsAndReadOnlyOutcomes() {
        let client = TopicAccess.client(named: "User:registrar-client")
        #expect(client.writes == [Topic.registrationRequests, Topic.codeRequests, Topic.authRequests, Topic.accountRequests])
        #expect(client.reads == Set(Topic.outcomes))
        #expect(client.group == nil)
    }

    /// Only the operator's tools write the operator's requests; no worker and no client does.
    @Test func onlyTheOperatorWritesTheOperatorsRequests() {
        let writers = (TopicAccess.workers.map(TopicAccess.worker) + [TopicAccess.client(named: "c"), TopicAccess.operatorTools(named: "o"),
                                                                     TopicAccess.eventsConsumer(named: "e", group: "g")])
            .filter { $0.writes.contains(Topic.operatorRequests) }.map(\.principal)
        #expect(writers == ["o"])
    }

    @Test func everyTopicReadIsWrittenBySomeoneAndEveryNamedTopicExists() {
        let accesses = TopicAccess.workers.map(TopicAccess.worker) + [TopicAccess.client(named: "c"), TopicAccess.operatorTools(named: "o")]
        let written = accesses.reduce(into: Set<String>()) { $0.formUnion($1.writes) }
        for access in accesses {
            #expect(access.reads.isSubset(of: written), "\(access.principal) reads a topic nobody writes")
        }
        let all = Set(Topic.all.map(\.name))
        #expect(accesses.allSatisfy { $0.reads.union($0.writes).isSubset(of: all) })
        #expect(TopicAccess.operatorTools(named: "o").reads == all)
    }

    static func routes<Kind: RunnableWorker>(_ kind: Kind.Type, _ data: String) throws -> Set<Route> {
        let parsed = try ParsedArguments(["--data-dir", data + "/" + kind.name], spec: kind.spec, environment: [:])
        return try kind.stack(parsed, dataDirectory: data + "/" + kind.name, clock: Date.init).routing.routes
    }
}
