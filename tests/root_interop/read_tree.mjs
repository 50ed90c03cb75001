// Reads every branch of a flat TTree with jsroot and prints {"entries", "branches": {name:
// {"title", "values"}}} as JSON: laddu-cpp's ROOT writer tests compare it value for value.
// Usage: node read_tree.mjs FILE [TREE]
import { openFile } from 'jsroot';
import { TSelector, treeProcess } from 'jsroot/tree';

const [path, treeName = 'tree'] = process.argv.slice(2);
const file = await openFile(path);
const tree = await file.readObject(treeName);
const branches = tree.fBranches.arr;
const out = { entries: Number(tree.fEntries), branches: {} };
const selector = new TSelector();
for (const branch of branches) {
    selector.addBranch(branch.fName);
    out.branches[branch.fName] = { title: branch.fTitle, values: [] };
}
selector.Process = function () {
    for (const branch of branches) {
        out.branches[branch.fName].values.push(this.tgtobj[branch.fName]);
    }
};
if (out.entries > 0) {
    await treeProcess(tree, selector);
}
process.stdout.write(JSON.stringify(out));
