// The page's entry point (a file, not an inline script: the Content-Security-Policy allows only
// scripts from the server itself).
import { start } from "./app.js";

start();
