// The notes screens as the app routes to them: the list and the editor (which brings the conflict screen and the
// linked items with it).
export { NoteEditor } from "./NoteEditor.tsx";
export { NoteList } from "./NoteList.tsx";
