"""soak_lib - the parts of contrib/soak.py in modules of their own.

contrib/soak.py is the program (its CLI, set-up, workload, polling and main
loop); it puts its own directory first on sys.path and imports these:
  common  the soak's fixed settings (fault and job kinds, nodes, limits)
  faults  Faults, the faults it injects (a mixin of soak.py's Soak)
  quiet   QuietPoint, the checks at a quiet point (a mixin of Soak)
The mixins use Soak's state and helpers (self.run, self.log, self.count...).
"""
