/// A model a mapper produces from a response, such as a `struct` of your API.
/// It asks for nothing; it marks the types ``ResponseMapper`` and
/// ``ArrayResponseMapper`` build.
public protocol ParsedItem {}
