@testable import Domain
@testable import TestSupport
import Testing

/// A routing table hands each (topic, event type) to the one step that declares it, and no other.
@Suite(.tags(.unit)) struct RoutingTableTests {
    struct ImageStep: EventHandler {
        static let routes = Route.set([Topic.imageCommands: [.storeAvatar, .deleteAvatar]])
        func handle(_ event: Event) throws -> [Event] { [] }
    }

    struct ProfileStep: EventHandler {
        static let routes = Route.set([Topic.profileCommands: [.writeProfile]])
        func handle(_ event: Event) throws -> [Event] { [] }
    }

    /// Claims `StoreAvatar` on `image.commands` too.
    struct RivalImageStep: EventHandler {
        static let routes = Route.set([Topic.imageCommands: [.storeAvatar]])
        func handle(_ event: Event) throws -> [Event] { [] }
    }

    @Test func eachRouteGoesToTheStepDeclaringIt() {
        let table = RoutingTable([ImageStep(), ProfileStep()])
        #expect(table.step(for: .storeAvatar, on: Topic.imageCommands) is ImageStep)
        #expect(table.step(for: .deleteAvatar, on: Topic.imageCommands) is ImageStep)
        #expect(table.step(for: .writeProfile, on: Topic.profileCommands) is ProfileStep)
        #expect(table.routes == ImageStep.routes.union(ProfileStep.routes))
        #expect(table.topics == [Topic.imageCommands, Topic.profileCommands])
    }

    @Test func aTypeIsNotTakenOnATopicNoStepTakesItOn() {
        let table = RoutingTable([ImageStep(), ProfileStep()])
        #expect(table.step(for: .storeAvatar, on: Topic.profileCommands) == nil)
        #expect(table.step(for: .writeProfile, on: Topic.imageCommands) == nil)
        #expect(table.step(for: .registrationCompleted, on: Topic.authRequests) == nil)
    }

    @Test func answerOnceTakesTheRoutesOfItsStep() {
        #expect(AnswerOnce<ImageStep>.routes == ImageStep.routes)
    }

    @Test func twoStepsClaimingOneRouteIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            _ = RoutingTable([ImageStep(), RivalImageStep()])
        }
    }
}
