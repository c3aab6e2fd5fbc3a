import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@PublicInit`: a struct's public memberwise initialiser — a parameter per stored property, in declaration order,
/// with the property's name, type and default (`nil` for an optional `var`, as Swift's own) — which Swift generates only
/// `internal`. The contract's events are public
/// values built in other modules; this writes each one's initialiser once, here, instead of once per event.
public struct PublicInitMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(StructDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: PublicInitMessage.notAStruct))
            return []
        }
        var parameters: [String] = []
        var assignments: [String] = []
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), !variable.isStatic else { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings where binding.isStored {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmedDescription else { continue }
                if isLet && binding.initializer != nil { continue }  // a constant with its value: nothing to pass
                guard let type = binding.typeAnnotation?.type.trimmedDescription else {
                    context.diagnose(Diagnostic(node: Syntax(binding), message: PublicInitMessage.untyped(name)))
                    return []
                }
                let defaultValue = binding.initializer.map { " = \($0.value.trimmedDescription)" }
                    ?? (!isLet && type.hasSuffix("?") ? " = nil" : "")
                parameters.append("\(name): \(type)\(defaultValue)")
                assignments.append("self.\(name) = \(name)")
            }
        }
        return ["""
            public init(\(raw: parameters.joined(separator: ", "))) {
            \(raw: assignments.joined(separator: "\n"))
            }
            """]
    }
}

private extension VariableDeclSyntax {
    var isStatic: Bool { modifiers.contains { $0.name.tokenKind == .keyword(.static) } }
}

private extension PatternBindingSyntax {
    /// Stored: no accessors but observers (`willSet`, `didSet`).
    var isStored: Bool {
        guard let accessors = accessorBlock?.accessors else { return true }
        guard case .accessors(let list) = accessors else { return false }
        return list.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
    }
}

enum PublicInitMessage: DiagnosticMessage {
    case notAStruct
    case untyped(String)

    var message: String {
        switch self {
        case .notAStruct: "@PublicInit applies to a struct"
        case .untyped(let name): "@PublicInit needs the type of '\(name)' written out"
        }
    }
    var diagnosticID: MessageID { MessageID(domain: "MemberwiseInit", id: "\(self)") }
    var severity: DiagnosticSeverity { .error }
}
