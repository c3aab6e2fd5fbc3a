import Foundation
import PackagePlugin

/// Embeds the files under a target's `Templates` directory in the target, as Go's `//go:embed` does: the build runs
/// `embed-files` to write `EmbeddedFiles.swift` (`enum EmbeddedFiles { static let files: [String: String] }`, keyed by
/// path under `Templates`), again whenever one of them changes. The target excludes `Templates` from its sources.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // `Sources/<target>/Templates`: the package's layout (a target's own URL needs tools version 6.1).
        let directory = context.package.directoryURL.appendingPathComponent("Sources/\(target.name)/Templates")
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isDirectoryKey])?
            .compactMap { $0 as? URL }.filter { !$0.hasDirectoryPath } ?? []
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedFiles.swift")
        return [.buildCommand(displayName: "Embedding \(target.name)'s templates", executable: try context.tool(named: "embed-files").url,
                              arguments: [directory.path, output.path], inputFiles: files, outputFiles: [output])]
    }
}
