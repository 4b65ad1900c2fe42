export interface StudioFile {
  /** e.g. "main-3f2a1c.js" */
  name: string;
  type: string;
  text: string;
}

/** The Studio: index.html plus hashed JS/CSS files served under /studio/assets/. */
export interface StudioBundle {
  html: string;
  files: StudioFile[];
}
