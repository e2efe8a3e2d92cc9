// Node 22's vm contexts (vitest's vmThreads and vmForks pools) have no Symbol.dispose, which the
// harness uses; this is the symbol Node's main realm uses, so its objects stay disposable.
Symbol.dispose ??= Symbol.for('nodejs.dispose')
