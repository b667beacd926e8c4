// A style sheet imported by a component, in a render test: nothing.
module.exports = {};
