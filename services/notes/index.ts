// The notes service. For now it answers only its health subject (served by the host); its domain comes in later issues.
import type { ServiceModule } from "@trove/host";

export const notesService: ServiceModule = {
  name: "notes",
  async start() {
    return { stop: async () => {} };
  },
};
