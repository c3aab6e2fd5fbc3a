import Foundation
import Support
@testable import TestSupport
import Testing

/// What each process of the deploy files holds, read from the files: only its own keys (a directory of its own, so a
/// rotation reaches it), its own stores' credentials (its own database role, SMTP only where mail is sent, the object
/// store only for the image worker and the gateway's staging), and, on Kubernetes, what the API server would accept
/// (`kubernetes-validate --strict`), pods whose secret files the workers can read, and network policies. The files are
/// started for real by scripts/deploy-rehearsal (compose, and each Deployment's container as kubelet would run it).
@Suite(.tags(.live, .storeFree)) struct DeployPrivilegeTests {
    static let deploy = DeployFilesTests.deploy
    static let workers = ["account-worker", "code-dispatch-worker", "image-worker", "profile-worker"]
    /// The store variables each process may be given, and the database role it connects as.
    static let stores: [String: Set<String>] = [
        "account-worker": ["REGISTRAR_ACCOUNTS", "REGISTRAR_PROFILES", "REGISTRAR_MAIL"],
        "code-dispatch-worker": ["REGISTRAR_ACCOUNTS", "REGISTRAR_MAIL"],
        "image-worker": ["REGISTRAR_IMAGES", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
        "profile-worker": ["REGISTRAR_PROFILES"],
        "gateway": ["REGISTRAR_IMAGES", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
        "console": ["REGISTRAR_ACCOUNTS", "REGISTRAR_PROFILES", "REGISTRAR_IMAGES", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
    ]
    static let roles = ["account-worker": "registrar_account_worker", "code-dispatch-worker": "registrar_code_dispatch_worker",
                        "profile-worker": "registrar_profile_worker", "console": "registrar_operator"]

    @Test func composeGivesEachProcessOnlyItsOwnKeysAndStores() async throws {
        let compose = try #require(try await DeployFilesTests.yaml(Self.deploy + "/compose.yaml").first as? [String: Any])
        let services = try #require(compose["services"] as? [String: [String: Any]])
        for (name, allowed) in Self.stores {
            let service = try #require(services[name])
            let environment = (service["environment"] as? [String: Any])?.mapValues { "\($0)" } ?? [:]
            let given = Set(environment.keys.filter { $0.hasPrefix("REGISTRAR_") && $0 != "REGISTRAR_METRICS_LISTEN" && $0 != "REGISTRAR_PUBLIC_KEY"
                                                      || $0.hasPrefix("AWS_") })
            #expect(given == allowed, "\(name) is given \(given.sorted())")
            for variable in ["REGISTRAR_ACCOUNTS", "REGISTRAR_PROFILES"] {
                guard let url = environment[variable] else { continue }
                #expect(url.hasPrefix("postgres://\(Self.roles[name] ?? "-"):"), "\(name) connects as its own role: \(variable)")
            }
            let volumes = (service["volumes"] as? [String]) ?? []
            let keys = volumes.filter { $0.contains("keys") }
            if Self.workers.contains(name) || name == "gateway" {
                #expect(keys == ["./trial/keys-by-process/\(name):/keys:ro"], "\(name) mounts its own key directory: \(keys)")
            } else {
                #expect(keys.isEmpty, "\(name) mounts keys: \(keys)")
            }
        }
        // The one-shot migration is the only one with the owner's credentials.
        let owners = services.filter { ($0.value["environment"] as? [String: Any])?.values.contains { "\($0)".contains("registrar:registrar-owner") } == true }
        #expect(Set(owners.keys) == ["migrate"])
        // Nothing is published beyond the machine, and the gateway's OAuth client is the trial's own, not the repository's demo.
        for (name, service) in services {
            for port in (service["ports"] as? [String]) ?? [] { #expect(port.hasPrefix("127.0.0.1:"), "\(name) publishes \(port)") }
            #expect(!((service["volumes"] as? [String]) ?? []).contains { $0.contains("gateway-clients.json") }, "\(name) mounts the demo client")
        }
    }

    @Test func kubernetesManifestsValidateStrictly() async throws {
        let validate = Binaries.packageRoot + "/.build/test-servers/deploy-tools/bin/kubernetes-validate"
        let process = try ChildProcess(validate, ["--strict", Self.deploy + "/kubernetes/registrar.yaml"], errors: .standardOutput)
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        #expect(await process.waitForExit() == 0, "\(lines.joined(separator: "\n"))")
        #expect(lines.filter { $0.contains(" passed for resource ") }.count == lines.count, "\(lines.joined(separator: "\n"))")
        #expect(lines.count >= 20)
    }

    @Test func kubernetesPodsReadTheirOwnSecretsOnlyAndReachOnlyTheirServices() async throws {
        let documents = try await DeployFilesTests.yaml(Self.deploy + "/kubernetes/registrar.yaml").compactMap { $0 as? [String: Any] }
        let documented = try DeployFilesTests.kubernetesSecretVariables()
        let policies = documents.filter { $0["kind"] as? String == "NetworkPolicy" }
        for document in documents where ["Deployment", "Job"].contains(document["kind"] as? String) {
            let name = try #require((document["metadata"] as? [String: Any])?["name"] as? String)
            let pod = try #require(((document["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
            // kubelet makes secret files 0440 root:<fsGroup>: readable because the group is the process's own.
            let security = try #require(pod["securityContext"] as? [String: Any])
            #expect(security["runAsUser"] as? Int == 10001 && security["runAsGroup"] as? Int == 10001 && security["fsGroup"] as? Int == 10001,
                    "\(name): \(security)")
            #expect(security["runAsNonRoot"] as? Bool == true)
            let containers = ((pod["initContainers"] as? [[String: Any]]) ?? []) + ((pod["containers"] as? [[String: Any]]) ?? [])
            for container in containers where (container["image"] as? String)?.hasPrefix(DeployFilesTests.kubernetesImage) == true {
                #expect(!(container["image"] as? String ?? "").hasSuffix(":latest"))
                #expect((container["securityContext"] as? [String: Any])?["readOnlyRootFilesystem"] as? Bool == true, "\(name)")
                let secrets = ((container["envFrom"] as? [[String: Any]]) ?? []).compactMap { ($0["secretRef"] as? [String: Any])?["name"] as? String }
                let given = Set(secrets.flatMap { documented[$0] ?? [] })
                if let allowed = Self.stores[name] { #expect(given == allowed, "\(name) is given \(given.sorted())") }
                if name == "registrar-migrate" { #expect(secrets == ["registrar-db-owner"]) }
            }
            if Self.workers.contains(name) {
                let volumes = try #require(pod["volumes"] as? [[String: Any]])
                #expect((volumes.first { $0["name"] as? String == "keys" }?["secret"] as? [String: Any])?["secretName"] as? String
                        == "registrar-\(name)-keys")
            }
            // An egress policy naming this workload's pods allows DNS and only the ports of the services it uses.
            let egress = policies.first { (($0["metadata"] as? [String: Any])?["name"] as? String) == "\(name)-egress" }
            let ports = Set((((egress?["spec"] as? [String: Any])?["egress"] as? [[String: Any]]) ?? [])
                .flatMap { ($0["ports"] as? [[String: Any]]) ?? [] }.compactMap { $0["port"] as? Int })
            let expected: Set<Int> = switch name {
            case "image-worker", "gateway": [53, 9093, 443]
            case "profile-worker": [53, 9093, 5432]
            case "account-worker", "code-dispatch-worker": [53, 9093, 5432, 465, 587]
            case "registrar-migrate": [53, 5432]
            default: [53, 9093]
            }
            #expect(ports == expected, "\(name) may reach \(ports.sorted())")
        }
    }

    /// systemd: each unit's credentials are exactly the keys `registrar keys distribute` gives its process during a
    /// rotation of every role (the previous public keys with a blank `SetCredential=` default, for when there is none),
    /// from that process's own directory, and its own Kafka principal's settings; its environment files the shared
    /// broker one and its own (the stores, as the unit's comments list them per process).
    @Test func systemdGivesEachProcessOnlyItsOwnKeysAndPrincipal() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("privilege-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try runCommand(Binaries.path("registrar"), ["keys", "--keys-dir", root + "/keys"])
        for role in ["account", "image", "profile", "code-dispatch", "operator"] {
            _ = try runCommand(Binaries.path("registrar"), ["keys", "rotate-events", "--role", role, "--keys-dir", root + "/keys"])
        }
        _ = try runCommand(Binaries.path("registrar"), ["keys", "distribute", "--keys-dir", root + "/keys", "--to", root + "/by-process"])
        // The operator's machine gets the operator key and the public keys of the roles that answer it, nothing else.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root + "/by-process/operator")) == [
            "events-operator.ed25519", "events-account.ed25519.pub", "events-account.previous.pub", "events-code-dispatch.ed25519.pub",
            "events-code-dispatch.previous.pub"])
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: root + "/by-process/gateway")).contains { $0.hasPrefix("events-operator") })
        let units = Self.workers.map { ($0, ["registrar-worker@.service", "registrar-worker@\($0).service.d/keys.conf"], $0) }
            + [("gateway", ["registrar-gateway.service"], "registrar-client")]
        for (process, files, principal) in units {
            let lines = try files.flatMap { try String(contentsOfFile: Self.deploy + "/systemd/" + $0, encoding: .utf8).split(separator: "\n") }
            let credentials = lines.filter { $0.hasPrefix("LoadCredential=") }.map { line in
                let parts = line.dropFirst("LoadCredential=".count).split(separator: ":", maxSplits: 1).map(String.init)
                return (name: parts[0], source: parts[1])
            }
            let keys = credentials.filter { $0.source.hasPrefix("/etc/registrar/keys-by-process/") }
            #expect(keys.allSatisfy { $0.source == "/etc/registrar/keys-by-process/\(process)/\($0.name)" }, "\(process): \(keys)")
            #expect(Set(keys.map(\.name)) == Set(try FileManager.default.contentsOfDirectory(atPath: root + "/by-process/" + process)),
                    "\(process) loads \(keys.map(\.name).sorted())")
            #expect(credentials.filter { $0.name == "kafka.properties" }.map(\.source) == ["/etc/registrar/kafka/\(principal).kafka.properties"])
            let others = credentials.filter { !$0.source.hasPrefix("/etc/registrar/keys-by-process/") && $0.name != "kafka.properties" }
            #expect(others.allSatisfy { process == "gateway" && $0.source == "/etc/registrar/gateway/\($0.name)" }, "\(process): \(others)")
            let defaults = lines.filter { $0.hasPrefix("SetCredential=") }.map { String($0.dropFirst("SetCredential=".count)) }
            #expect(Set(defaults) == Set(keys.map(\.name).filter { $0.hasSuffix(".previous.pub") }.map { $0 + #":\n"# }), "\(process): \(defaults)")
            let environment = lines.filter { $0.hasPrefix("EnvironmentFile=") }.map { String($0.dropFirst("EnvironmentFile=".count)) }
            #expect(environment == ["/etc/registrar/registrar.env", process == "gateway" ? "/etc/registrar/gateway.env" : "/etc/registrar/%i.env"])
        }
    }
}
