import Backends
import Crypto
import Domain
import EventTransport
import Foundation
import Imaging
import Installation
import Kafka
import RegistrarClient
import Registration
import Support

/// `registrar-dev chaos`: registrations under faults, then checks that nothing was lost or half-done.
public enum ChaosCommand {
    static let spec = CommandSpec(
        name: "registrar-dev chaos", summary: "register users while injecting faults, then check every promise",
        options: [
            .value("registrations", "How many registrations", default: "200"),
            .value("rate", "Requests published per second", default: "40"),
            .value("fault-interval", "Mean seconds between faults", default: "2"),
            .value("brokers", "Brokers in the local cluster", default: "3"),
            .value("settle", "Seconds to wait for every outcome once the faults stop", default: "300"),
            .value("seed", "Random seed, to repeat a run"),
            .value("data-dir", "Where the run keeps its stores and logs (emptied first)", default: "data/chaos"),
            .flag("keep-data", "Keep the data and logs of a run that passed on the long faults' tmpfs too (umount it when done)"),
            .value("fault", "NAME=COMMAND: a shell command that makes a store fail and heal, injected like the others "
                   + "(e.g. 'database restarted=pg_ctlcluster 15 main restart')", repeatable: true),
            .value("sent-mail", "The directory where the mail server keeps each message it accepted (needed with --mail)"),
            .flag("long-faults", "Also the long faults: the data disk full, the embedded databases locked, their files, the image "
                  + "store and the outbox made immutable, a worker frozen (SIGSTOP), the local broker SIGKILLed for as long, a "
                  + "worker and the gateway started again during each, and oversized and mistyped messages on every input topic. "
                  + "Needs root: it mounts a \(ChaosDisk.size) tmpfs on --data-dir "
                  + "(unless a file system is mounted there) to fill it, and uses chattr. On the production stores give "
                  + "their long faults with --fault (e.g. 'database down=pg_ctl stop -m fast; sleep 60; pg_ctl start')"),
            .value("long-fault-seconds", "How long each long fault lasts (the full disk half as long); without --long-faults "
                   + "the local broker stays down 3 s", default: "60"),
            .value("gateway-share", "Percent of the registrations, code requests and sign-ins that apps send through a gateway "
                   + "the run starts (0: no gateway)", default: "30"),
            .value("gateway-wait", "Seconds the gateway holds a request for its outcome before 202/503 (its --wait)", default: "10"),
            .value("updates", "Percent of the registrations that must complete whose owner then signs in and updates the profile "
                   + "(PATCH /me, ProfileUpdateRequested: name, map flag, a new avatar, a corrupt one now and then)", default: "10"),
            .value("deletions", "Percent of the registrations that must complete whose owner then signs in and deletes the account "
                   + "(DELETE /me, AccountDeletionRequested, re-authenticated by password)", default: "5"),
            .value("saga-deadline", "Seconds a registration may go without progress before it is undone (the account worker's "
                   + "--saga-deadline; default its own)"),
        ] + BackendOptions.specs)

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            // What the run waits for, every 30 s while it waits long (shown at once, also through a pipe).
            let watch = WaitWatch { say("chaos: " + $0) }
            let reporter = Task { await watch.report() }
            defer { reporter.cancel() }
            let count = try parsed.integer("registrations") ?? 200
            let rate = max(1, try parsed.integer("rate") ?? 40)
            let brokers = Int32(max(1, try parsed.integer("brokers") ?? 3))
            let seed = UInt64(try parsed.integer("seed") ?? Int.random(in: 1...999_999))
            var generator = SeededGenerator(seed: seed)
            let logger = Logger(component: "chaos")
            let stores = BackendOptions(parsed, dataDirectory: "")
            if stores.mail != nil && parsed.value("sent-mail") == nil {
                throw UsageError.invalid("--sent-mail DIR is needed with --mail: the run counts the emails the server accepted", spec.helpText)
            }
            let commands = try FaultInjector.commands(parsed.values("fault"), help: spec.helpText)
            let longSeconds = parsed.flag("long-faults") ? max(2, try parsed.integer("long-fault-seconds") ?? 60) : nil
            var disk: ChaosDisk?
            if longSeconds != nil {
                guard geteuid() == 0 else {
                    throw UsageError.invalid("--long-faults needs root: it mounts a tmpfs on --data-dir to fill it, and uses chattr", spec.helpText)
                }
                disk = try ChaosDisk(at: parsed.value("data-dir") ?? "data/chaos")
            }
            let gatewayShare = min(100, max(0, try parsed.integer("gateway-share") ?? 30))
            // The passwords are sealed before the run, which lasts longer than a seal's 5 minutes under long faults; the owners'
            // tokens and sign-ins are used after outages longer than an access token's 15 minutes and the 5-minute re-authentication.
            let account = ["--seal-max-age", "7200", "--access-token-lifetime", "7200", "--reauthentication-window", "7200"]
                + (try parsed.integer("saga-deadline").map { ["--saga-deadline", String($0)] } ?? [])
            let installation: LocalInstallation
            do {
                installation = try await LocalInstallation(
                    at: parsed.value("data-dir") ?? "data/chaos", binaries: LocalInstallation.besideThisBinary, stores: stores,
                    brokerArguments: ["--brokers", String(brokers)], workerArguments: LocalInstallation.quickFailover,
                    // The registrations' codes are mailed before the run, which lasts longer than a code's 10 minutes under long faults.
                    arguments: [WorkerRole.account.workerName: account, WorkerRole.codeDispatch.workerName: ["--code-ttl", "7200"]])
            } catch {
                disk?.unmount()
                throw error
            }
            say("chaos: \(count) registrations at \(rate)/s (\(gatewayShare)% through the gateway), \(brokers) brokers, seed \(seed)"
                  + (longSeconds.map { ", long faults of \($0) s" } ?? "") + "; data in \(installation.directory)")
            do {
                let gateway = gatewayShare > 0
                    ? AppClient(gateway: try await GatewayTraffic.startGateway(on: installation, wait: try parsed.integer("gateway-wait") ?? 10))
                    : nil
                let shares = (updates: min(100, max(0, try parsed.integer("updates") ?? 10)),
                              deletions: min(100, max(0, try parsed.integer("deletions") ?? 5)))
                let passed = try await exercise(installation, count: count, rate: rate, brokers: brokers, commands: commands, shares: shares,
                                                gateway: gateway, gatewayShare: gatewayShare, longSeconds: longSeconds,
                                                sentMail: parsed.value("sent-mail") ?? installation.directory + "/outbox",
                                                faultInterval: Double(try parsed.integer("fault-interval") ?? 2),
                                                settle: .seconds(try parsed.integer("settle") ?? 300),
                                                generator: &generator, logger: logger, watch: watch)
                await watch.waiting(for: "the workers, the gateway and the broker to stop") { await installation.stop() }
                if passed && !parsed.flag("keep-data") {
                    disk?.unmount()
                } else if disk?.mounted == true {
                    print("the data stays on the tmpfs at \(installation.directory): umount it when done")
                }
                return passed ? .success : .failure
            } catch {
                await installation.stop()
                disk?.unmount()
                throw error
            }
        }
    }

    /// Prints `line` and flushes it, so that it shows at once also through a pipe.
    private static func say(_ line: String) {
        print(line)
        fflush(nil)
    }

    private static func exercise(_ installation: LocalInstallation, count: Int, rate: Int, brokers: Int32, commands: [FaultInjector.Fault],
                                 shares: (updates: Int, deletions: Int),
                                 gateway: AppClient?, gatewayShare: Int, longSeconds: Int?, sentMail: String, faultInterval: Double, settle: Duration,
                                 generator: inout SeededGenerator, logger: Logger, watch: WaitWatch) async throws -> Bool {
        let publicKey = installation.publicKey
        // Each registration carries the register code mailed to its address, requested before the faults begin.
        let codes = try await watch.waiting(for: "the register codes of \(count) addresses to be mailed") {
            try await RegistrarClient.with(kafka: installation.kafka(clientID: "registrar-chaos"), publicKey: publicKey,
                                           verifier: try installation.outcomeVerifier(), name: "registrar-chaos") { client in
                try await MailedCodes(directory: sentMail).mail(to: ChaosWorkload.emails(count: count), .register, with: client)
            }
        }
        let photo = AvatarProcessor().defaultAvatar().jpeg
        let workload = ChaosWorkload(count: count, codes: codes, seal: { publicKey.sealedBase64($0, for: $1, in: $2) },
                                     replyKey: SealingKeyPair.generate().publicKey.base64,
                                     photo: photo, gatewayShare: gateway == nil ? 0 : gatewayShare, updateShare: shares.updates,
                                     deletionShare: shares.deletions, oversized: longSeconds != nil, using: &generator)
        let messages = workload.messages(using: &generator)
        let appRequests = GatewayTraffic.requests(workload, photo: photo, using: &generator)
        let publisher = try ChaosPublisher(installation)
        let lifecycle = TopicLifecycle(workload, publicKey: publicKey, photo: photo)
        // With the long faults, the account worker's clock is stepped too (when libfaketime is installed).
        let clock = longSeconds != nil && SteppedClock.isAvailable ? try SteppedClock(in: installation.directory) : nil
        if longSeconds != nil && clock == nil { say("chaos: libfaketime (Debian faketime) is not installed: no clock steps") }
        let long = longSeconds.map { ChaosFaults.long(installation.stores, seconds: $0) + (clock == nil ? [] : ChaosFaults.clockSteps(seconds: $0)) } ?? []
        let killed = LocalInstallation.workerNames + (gateway == nil ? [] : ["gateway"])
        var injector = FaultInjector(installation: installation, brokers: brokers,
                                     faults: killed.map(FaultInjector.Fault.killWorker) + [.brokerDown, .requestErrors, .killBroker(seconds: longSeconds ?? 3)]
                                         + ChaosFaults.short(installation.stores) + long + commands,
                                     publisher: publisher, logger: logger)
        injector.gateway = gateway != nil
        injector.restartsDuringCommands = longSeconds != nil
        injector.clock = clock
        if let longSeconds { injector.commandLimit = .seconds(longSeconds + 120) }
        let started = ContinuousClock.now
        let publishing = Double(messages.count) / Double(rate)

        // The apps send their requests over the same time, each retried with its key until it has its answer (or the
        // settle time after the faults ends).
        let appDeadline = AppClient.Deadline()
        // (A task rather than an `async let`, so that a wait can name what is in flight; cancelled, they stop retrying.)
        let apps = Task { () async -> [AppClient.Outcome] in
            guard let gateway else { return [] }
            return await GatewayTraffic.send(appRequests, through: gateway, over: .seconds(publishing), until: appDeadline)
                + GatewayTraffic.send(GatewayTraffic.signIns(workload), through: gateway, over: .seconds(1), until: appDeadline)
        }
        defer { apps.cancel() }
        // The topic owners sign in and update or delete as their registrations complete, while the faults go on.
        let owners = Task { try await lifecycle.run(installation, publisher: publisher, until: appDeadline, watch: watch) }
        defer { owners.cancel() }

        // Publish at the given rate while faults happen; then let everything settle.
        var faultCounts: [FaultInjector.Fault: Int] = [:]
        var failedFaults: [String] = []
        var died = Set<String>()
        var faultGenerator = SeededGenerator(seed: generator.next())
        try await withThrowingTaskGroup(of: [(FaultInjector.Fault, Bool, [String])].self) { group in
            group.addTask {
                for (index, message) in messages.enumerated() {
                    try await watch.waiting(for: "message \(index + 1) of \(messages.count) to be published") { try await publisher.publish(message) }
                    if index.isMultiple(of: rate) { try await Task.sleep(for: .seconds(1)) }
                }
                try await ChaosReport.waitForOutcomes(workload.firstHalf, of: "the first half's registrations (before their sign-ins)",
                                                      installation: installation, timeout: .seconds(120), watch: watch)
                for message in workload.signInMessages { try await publisher.publish(message) }
                return []
            }
            group.addTask { [faultGenerator, injector] in
                // Every kind once per round, in a random order; at least one round, however short the load.
                // A worker found stopped before a fault (which might start it again) died by itself.
                var generator = faultGenerator
                var injected: [(FaultInjector.Fault, Bool, [String])] = []
                var round: [FaultInjector.Fault] = []
                // Until every owner's update or deletion is published too (within the settle time after the publishing).
                func ownersWaiting() -> Bool { !lifecycle.allPublished && ContinuousClock.now - started < .seconds(publishing) + settle }
                while ContinuousClock.now - started < .seconds(publishing + 5) || injected.count < injector.faults.count || ownersWaiting() {
                    if round.isEmpty { round = injector.faults.shuffled(using: &generator) }
                    try await Task.sleep(for: .milliseconds(Int(Double.random(in: 0.5...1.5, using: &generator) * faultInterval * 1000)))
                    let fault = round.removeLast()
                    let stopped = installation.stoppedWorkers
                    let succeeded = try await watch.waiting(for: "the fault '\(fault.name)' to be injected and heal") {
                        try await injector.inject(fault, using: &generator)
                    }
                    injected.append((fault, succeeded, stopped))
                }
                return injected
            }
            for try await injected in group {
                for (fault, succeeded, stopped) in injected {
                    faultCounts[fault, default: 0] += 1
                    if !succeeded { failedFaults.append(fault.name) }
                    died.formUnion(stopped)
                }
            }
        }
        appDeadline.set(.now + settle)
        try await watch.waiting(for: "the run's producer to deliver what it holds") { try await publisher.finish() }
        _ = faultGenerator.next()
        died.formUnion(installation.stoppedWorkers)
        for name in installation.stoppedWorkers { try injector.start(name) }
        say("faults: " + injector.faults.map { "\(faultCounts[$0] ?? 0) × \($0.name)" }.joined(separator: ", "))

        let appOutcomes = await watch.waiting(for: "the apps' final answers", outstanding: { gateway?.inFlight.summary }) { await apps.value }
        try await watch.waiting(for: "the answers to the updates and deletions over the topics", outstanding: {
            ChaosReport.missingOnes(lifecycle.current.filter { !$0.settled }.map(\.registrationId), of: lifecycle.current.count)
        }) { try await owners.value }
        let report = try await ChaosReport.collect(installation, workload: workload, settle: settle, sentMail: sentMail,
                                                   failedFaults: failedFaults, died: died.sorted(), apps: appOutcomes,
                                                   lifecycle: ChaosReport.lifecycleCases(topics: lifecycle.current, apps: appOutcomes, workload: workload),
                                                   watch: watch)
        print("settled in \((ContinuousClock.now - started).formatted(.units(allowed: [.seconds], width: .abbreviated)))")
        report.lines.forEach { print($0) }
        return report.passed
    }
}
