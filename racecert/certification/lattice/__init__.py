"""The certificate of the start-list profiles (lattice and cell-path tracks):
`certificate` (`LatticeCertificate`, `certify_lattice`) and `checks` (the lattice
profile's independent checks; the cell-path ones are in `racecert.certification.cellpath`).

`racecert.certification.profiles` registers them beside the grid profile.
"""
