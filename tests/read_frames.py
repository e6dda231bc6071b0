#!/usr/bin/python3
"""Open alcove frames with the readers people use (issue 20): meshio for .vtu and .ply, and
VTK's own XML reader for .vtu. Every file named on the command line must load, with the point
and cell counts its header states and the arrays alcove writes.

    /usr/bin/python3 tests/read_frames.py FILE...

Exit status: 0 all read; 1 a file failed (named on stderr); 77 meshio or vtk is missing (the
caller reports the test skipped). Debian's python3-meshio and python3-vtk9 provide them; the
`python3` first on PATH may be a separate Python that does not see them.
"""
import re
import sys

try:
    import meshio
    import vtk
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"missing Python module: {e.name} (install python3-meshio python3-vtk9)", file=sys.stderr)
    sys.exit(77)


def header_counts(path):
    """NumberOfPoints and NumberOfCells of a .vtu, or the element counts of a .ply."""
    with open(path, "rb") as f:
        head = f.read(4096).decode("latin-1")
    if path.endswith(".vtu"):
        m = re.search(r'NumberOfPoints="(\d+)" NumberOfCells="(\d+)"', head)
    else:
        m = re.search(r"element vertex (\d+)\n.*element face (\d+)\n", head, re.S)
    return int(m.group(1)), int(m.group(2))


def check(path):
    npts, ncells = header_counts(path)
    mesh = meshio.read(path)
    ntri = sum(len(c.data) for c in mesh.cells if c.type == "triangle")
    if len(mesh.points) != npts or ntri != ncells:
        raise ValueError(f"meshio: {len(mesh.points)} points, {ntri} triangles; "
                         f"the header says {npts}, {ncells}")
    if path.endswith(".vtu"):
        for name in ("vertex",):
            if name not in mesh.point_data:
                raise ValueError(f"meshio: no point array '{name}'")
        if "body" not in mesh.cell_data:
            raise ValueError("meshio: no cell array 'body'")
        r = vtk.vtkXMLUnstructuredGridReader()
        r.SetFileName(path)
        r.Update()
        g = r.GetOutput()
        if r.GetErrorCode() or g.GetNumberOfPoints() != npts or g.GetNumberOfCells() != ncells:
            raise ValueError(f"vtk: {g.GetNumberOfPoints()} points, {g.GetNumberOfCells()} "
                             f"cells; the header says {npts}, {ncells}")
        if g.GetCellData().GetArray("body") is None:
            raise ValueError("vtk: no cell array 'body'")
    else:
        if "body" not in mesh.point_data:
            raise ValueError("meshio: no vertex property 'body'")


def main():
    bad = 0
    for path in sys.argv[1:]:
        try:
            check(path)
        except Exception as e:  # every failure is reported with its file
            print(f"{path}: {e}", file=sys.stderr)
            bad += 1
    print(f"{len(sys.argv) - 1 - bad} of {len(sys.argv) - 1} frames read by meshio"
          f" {meshio.__version__} and VTK {vtk.vtkVersion.GetVTKVersion()}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
