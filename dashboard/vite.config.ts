// The dashboard is built into dist/ (served by the server's dashboard surface, src/apps/dashboard).
// It imports @subbridge/sdk as published: the package's built dist/ (npm run sdk:build runs first).
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    // The budget (issue 44): initial JavaScript at most 250 kB gzip; scripts/bench/dashboard-size.mjs measures it.
    chunkSizeWarningLimit: 900,
  },
});
