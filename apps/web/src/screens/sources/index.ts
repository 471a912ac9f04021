// The Sources screen as the app routes to it; the forms and panels it is made of stay inside this folder.
export { Sources } from "./Sources.tsx";
