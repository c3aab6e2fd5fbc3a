import Foundation
import Support

/// The families every process exports besides its own: the `process_*` ones Prometheus's client libraries
/// export (CPU, memory, file descriptors, start time), read at each scrape, and `registrar_build_info`.
enum ProcessMetrics {
    /// Declares them in `registry` (again for a second endpoint: the same families, read the same way).
    static func install(in registry: MetricsRegistry) {
        let read = { @Sendable (value: (ProcessUsage) -> Double?) -> [[String]: Double] in
            ProcessUsage(pid: getpid()).flatMap(value).map { [[]: $0] } ?? [:]
        }
        registry.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds")
            .collect(from: "process") { read { $0.cpuTime.seconds } }
        registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes")
            .collect(from: "process") { read { Double($0.residentBytes) } }
        registry.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes")
            .collect(from: "process") { read { Double($0.virtualBytes) } }
        registry.gauge("process_open_fds", "Number of open file descriptors")
            .collect(from: "process") { read { $0.openDescriptors.map(Double.init) } }
        registry.gauge("process_max_fds", "Maximum number of open file descriptors")
            .collect(from: "process") { [[]: Double(ProcessUsage.descriptorLimit)] }
        registry.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds")
            .collect(from: "process") { read { $0.startTime.timeIntervalSince1970 } }
        registry.gauge("registrar_build_info", "The release this process runs (always 1)", labels: ["version"])
            .set(1, RegistrarVersion.current)
    }
}
