/// Gives a struct its public memberwise initialiser: a parameter per stored property, in declaration order, with the
/// property's name, type and declared default (Swift's own is `internal`). For the contract's events, built in other
/// modules.
@attached(member, names: named(init))
public macro PublicInit() = #externalMacro(module: "MemberwiseInit", type: "PublicInitMacro")
