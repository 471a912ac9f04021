// The exports service. For now it answers only its health subject (served by the host); its domain comes in later issues.
import type { ServiceModule } from "@trove/host";

export const exportsService: ServiceModule = {
  name: "exports",
  async start() {
    return { stop: async () => {} };
  },
};
