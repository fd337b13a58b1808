"""A water molecule in GPAW's real-space (finite-difference) mode, the ground state to 1e-4 eV,
on as many ranks as mpirun starts: a real application (Debian's gpaw, density-functional theory in
Python on NumPy, C extensions and MPI) for the end-to-end test python_gpaw.sh. The user's only
line of computation is get_potential_energy; every array is made inside GPAW."""
from ase.build import molecule
from gpaw import GPAW
from gpaw.mpi import world

atoms = molecule("H2O")
atoms.center(vacuum=3.5)
atoms.calc = GPAW(mode="fd", h=0.2, txt=None, convergence={"energy": 1e-4})
energy = atoms.get_potential_energy()
if world.rank == 0:
    print(f"ranks {world.size} energy {energy:.4f}")
