! ct-record-app-f: the Fortran twin of ct-record-app (record_app.c), for the
! recorder's Fortran bindings (recorder/record_f.c, doc/recorder.md "Fortran
! programs"). Each mode makes the same MPI calls, with the same sizes, as
! the C program's mode of the same name, through `use mpi`, so that
! tests/recorder/run can require the two recordings to have the same lines
! (compute gaps aside):
!   ct-record-app-f ITERS BYTES WORK     the iterative application
!   ct-record-app-f colls blocking|nonblocking|inplace
!   ct-record-app-f complete x
!   ct-record-app-f tags x
!   ct-record-app-f nbr cart
!   ct-record-app-f ring persistent|immediate ITERS
!   ct-record-app-f mprobe matched|plain
!   ct-record-app-f cancel cancelled|plain
!   ct-record-app-f startup MS plain|region
program record_app_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, nargs
  character(len=32) :: mode, a2, a3

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nargs = command_argument_count()
  mode = ''; a2 = ''; a3 = ''
  if (nargs >= 1) call get_command_argument(1, mode)
  if (nargs >= 2) call get_command_argument(2, a2)
  if (nargs >= 3) call get_command_argument(3, a3)
  select case (trim(mode))
  case ('colls')
    call colls(trim(a2))
  case ('complete')
    call complete()
  case ('tags')
    call tags()
  case ('nbr')
    call nbr()
  case ('ring')
    call ring(trim(a2), to_int(a3))
  case ('mprobe')
    call mprobe(trim(a2))
  case ('cancel')
    call cancel(trim(a2))
  case ('startup')
    call startup(to_int(a2), trim(a3))
  case default
    call app(to_int(mode), to_int(a2), to_int(a3))
  end select
  call MPI_Finalize(ierr)

contains

  integer function to_int(s)
    character(len=*), intent(in) :: s
    read (s, *) to_int
  end function

  ! spin for s seconds of wall time
  subroutine spin(s)
    double precision, intent(in) :: s
    double precision :: t0, x
    integer :: i
    t0 = MPI_Wtime()
    x = 0
    do while (MPI_Wtime() - t0 < s)
      do i = 1, 1000
        x = x + i * 0.5d0
      end do
    end do
    if (x < 0) print *, x
  end subroutine

  ! per iteration: compute, a ring (Irecv/Isend/Waitall), a Sendrecv, an
  ! Allreduce, a Bcast on a split communicator, an Alltoall, a Barrier
  subroutine app(iters, bytes, work)
    integer, intent(in) :: iters, bytes, work
    character, allocatable :: sb(:), rb(:)
    integer :: half, it, i, right, left, rq(2)
    double precision :: acc, x, y
    allocate (sb(bytes * nprocs + 1), rb(bytes * nprocs + 1))
    sb = 'a'
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    acc = 0
    right = mod(rank + 1, nprocs); left = mod(rank - 1 + nprocs, nprocs)
    do it = 1, iters
      do i = 1, work
        acc = acc + i * 1d-9
      end do
      call MPI_Irecv(rb, bytes, MPI_CHARACTER, left, 1, MPI_COMM_WORLD, rq(1), ierr)
      call MPI_Isend(sb, bytes, MPI_CHARACTER, right, 1, MPI_COMM_WORLD, rq(2), ierr)
      call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
      call MPI_Sendrecv(sb, bytes / 2, MPI_CHARACTER, left, 2, rb, bytes, MPI_CHARACTER, &
                        right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      x = acc
      call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      call MPI_Bcast(sb, bytes, MPI_CHARACTER, 0, half, ierr)
      call MPI_Alltoall(sb, bytes / nprocs, MPI_CHARACTER, rb, bytes / nprocs, MPI_CHARACTER, &
                        MPI_COMM_WORLD, ierr)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end do
    call MPI_Comm_free(half, ierr)
  end subroutine

  ! every collective once (record_app.c colls_mode), or those that take
  ! MPI_IN_PLACE with it (colls_inplace)
  subroutine colls(how)
    character(len=*), intent(in) :: how
    integer :: cnt(0:nprocs - 1), dsp(0:nprocs - 1), mine(0:nprocs - 1), sym(0:nprocs - 1)
    integer :: wt(0:nprocs - 1), wr(0:nprocs - 1), wd(0:nprocs - 1)
    integer :: i, r, w, c, d
    double precision, allocatable :: a(:), b(:)
    logical :: nb
    allocate (a(8 * nprocs * nprocs), b(8 * nprocs * nprocs))
    a = 0; b = 0
    do i = 0, nprocs - 1
      cnt(i) = i + 1; dsp(i) = 64 * i; mine(i) = rank + 1; sym(i) = rank + i + 1
    end do
    w = MPI_COMM_WORLD; c = MPI_CHARACTER; d = MPI_DOUBLE_PRECISION
    do i = 0, nprocs - 1
      wt(i) = c; wr(i) = c; wd(i) = 128 * i
      if (i == 2) wt(i) = MPI_INTEGER
      if (rank == 2) wr(i) = MPI_INTEGER
    end do
    if (how == 'inplace') then
      call MPI_Allreduce(MPI_IN_PLACE, a, 3, d, MPI_SUM, w, ierr)
      if (rank == 0) then
        call MPI_Reduce(MPI_IN_PLACE, a, 10, d, MPI_SUM, 0, w, ierr)
        call MPI_Gather(MPI_IN_PLACE, 5, c, b, 5, c, 0, w, ierr)
      else
        call MPI_Reduce(a, a, 10, d, MPI_SUM, 0, w, ierr)
        call MPI_Gather(a, 5, c, b, 5, c, 0, w, ierr)
      end if
      if (rank == 1) then
        call MPI_Gatherv(MPI_IN_PLACE, rank + 1, c, b, cnt, dsp, c, 1, w, ierr)
      else
        call MPI_Gatherv(a, rank + 1, c, b, cnt, dsp, c, 1, w, ierr)
      end if
      if (rank == 0) then
        call MPI_Scatter(a, 7, c, MPI_IN_PLACE, 7, c, 0, w, ierr)
        call MPI_Scatterv(a, cnt, dsp, c, MPI_IN_PLACE, rank + 1, c, 0, w, ierr)
      else
        call MPI_Scatter(a, 7, c, b, 7, c, 0, w, ierr)
        call MPI_Scatterv(a, cnt, dsp, c, b, rank + 1, c, 0, w, ierr)
      end if
      call MPI_Allgather(MPI_IN_PLACE, 9, c, b, 9, c, w, ierr)
      call MPI_Allgatherv(MPI_IN_PLACE, rank + 1, c, b, cnt, dsp, c, w, ierr)
      call MPI_Alltoall(MPI_IN_PLACE, 2, d, b, 2, d, w, ierr)
      call MPI_Alltoallv(MPI_IN_PLACE, sym, dsp, c, b, sym, dsp, c, w, ierr)
      call MPI_Scan(MPI_IN_PLACE, a, 4, d, MPI_SUM, w, ierr)
      call MPI_Exscan(MPI_IN_PLACE, a, 2, MPI_INTEGER, MPI_SUM, w, ierr)
      return
    end if
    nb = how == 'nonblocking'
    if (nb) then
      call MPI_Ibarrier(w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ibcast(a, 100, c, 1, w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ireduce(a, b, 10, d, MPI_SUM, 0, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iallreduce(a, b, 3, d, MPI_SUM, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Igather(a, 5, c, b, 5, c, 0, w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Igatherv(a, rank + 1, c, b, cnt, dsp, c, 1, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iscatter(a, 7, c, b, 7, c, 0, w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iscatterv(a, cnt, dsp, c, b, rank + 1, c, 0, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iallgather(a, 9, c, b, 9, c, w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iallgatherv(a, rank + 1, c, b, cnt, dsp, c, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ialltoall(a, 2, d, b, 2, d, w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ialltoallv(a, cnt, dsp, c, b, mine, dsp, c, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ialltoallw(a, cnt, wd, wt, b, mine, wd, wr, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ireduce_scatter(a, b, cnt, MPI_INTEGER, MPI_SUM, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Ireduce_scatter_block(a, b, 2, d, MPI_SUM, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iscan(a, b, 4, d, MPI_SUM, w, r, ierr); call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
      call MPI_Iexscan(a, b, 2, MPI_INTEGER, MPI_SUM, w, r, ierr)
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Barrier(w, ierr)
      call MPI_Bcast(a, 100, c, 1, w, ierr)
      call MPI_Reduce(a, b, 10, d, MPI_SUM, 0, w, ierr)
      call MPI_Allreduce(a, b, 3, d, MPI_SUM, w, ierr)
      call MPI_Gather(a, 5, c, b, 5, c, 0, w, ierr)
      call MPI_Gatherv(a, rank + 1, c, b, cnt, dsp, c, 1, w, ierr)
      call MPI_Scatter(a, 7, c, b, 7, c, 0, w, ierr)
      call MPI_Scatterv(a, cnt, dsp, c, b, rank + 1, c, 0, w, ierr)
      call MPI_Allgather(a, 9, c, b, 9, c, w, ierr)
      call MPI_Allgatherv(a, rank + 1, c, b, cnt, dsp, c, w, ierr)
      call MPI_Alltoall(a, 2, d, b, 2, d, w, ierr)
      call MPI_Alltoallv(a, cnt, dsp, c, b, mine, dsp, c, w, ierr)
      call MPI_Alltoallw(a, cnt, wd, wt, b, mine, wd, wr, w, ierr)
      call MPI_Reduce_scatter(a, b, cnt, MPI_INTEGER, MPI_SUM, w, ierr)
      call MPI_Reduce_scatter_block(a, b, 2, d, MPI_SUM, w, ierr)
      call MPI_Scan(a, b, 4, d, MPI_SUM, w, ierr)
      call MPI_Exscan(a, b, 2, MPI_INTEGER, MPI_SUM, w, ierr)
    end if
  end subroutine

  ! a ring's two requests completed by each completion call in turn
  ! (record_app.c complete_mode); Fortran's indices are 1-based
  subroutine complete()
    character :: sb(1024), rb(1024)
    integer :: how, r(2), st(MPI_STATUS_SIZE, 2), idx(2), k, n, i, right, left
    logical :: flag
    sb = 'a'
    right = mod(rank + 1, nprocs); left = mod(rank - 1 + nprocs, nprocs)
    do how = 0, 7
      call MPI_Irecv(rb, 1024, MPI_CHARACTER, left, 7, MPI_COMM_WORLD, r(1), ierr)
      call MPI_Isend(sb, 1024, MPI_CHARACTER, right, 7, MPI_COMM_WORLD, r(2), ierr)
      n = 2
      do while (n > 0)
        select case (how)
        case (0)
          call MPI_Waitall(2, r, st, ierr); n = 0
        case (1)
          call MPI_Waitany(2, r, k, st(:, 1), ierr); n = n - 1
          if (k < 1 .or. k > 2) call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
          if (r(k) /= MPI_REQUEST_NULL) call MPI_Abort(MPI_COMM_WORLD, 6, ierr)
        case (2)
          call MPI_Waitsome(2, r, k, idx, st, ierr); n = n - k
          do i = 1, k
            if (r(idx(i)) /= MPI_REQUEST_NULL) call MPI_Abort(MPI_COMM_WORLD, 7, ierr)
          end do
        case (3)
          call MPI_Testall(2, r, flag, st, ierr)
          if (flag) n = 0
        case (4)
          call MPI_Testany(2, r, k, flag, st(:, 1), ierr)
          if (flag .and. k /= MPI_UNDEFINED) n = n - 1
        case (5)
          call MPI_Testsome(2, r, k, idx, st, ierr); n = n - k
        case (6)
          call MPI_Wait(r(1), st(:, 1), ierr); call MPI_Wait(r(2), st(:, 2), ierr); n = 0
        case default
          do i = 1, 2
            if (r(i) /= MPI_REQUEST_NULL) then
              call MPI_Test(r(i), flag, st(:, i), ierr)
              if (flag) n = n - 1
            end if
          end do
        end select
      end do
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine

  ! messages received by tag out of their send order, and a receive from
  ! any source with any tag (record_app.c tags_mode)
  subroutine tags()
    character :: b(200), r64(64), s64(64), d(300)
    integer :: r(2), dup, h1, h2
    b = 'a'; s64 = 'b'; d = 'c'
    if (rank == 1) then
      call MPI_Send(b, 100, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, ierr)
      call MPI_Send(b, 200, MPI_CHARACTER, 0, 2, MPI_COMM_WORLD, ierr)
    else if (rank == 0) then
      call MPI_Recv(b, 200, MPI_CHARACTER, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Recv(b, 100, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
    call MPI_Irecv(r64, 64, MPI_CHARACTER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, r(1), ierr)
    call MPI_Isend(s64, 64, MPI_CHARACTER, mod(rank + 1, nprocs), 7, MPI_COMM_WORLD, r(2), ierr)
    call MPI_Waitall(2, r, MPI_STATUSES_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    if (rank == 1) then
      call MPI_Send(d, 300, MPI_CHARACTER, 0, 1, dup, ierr)
      call MPI_Send(d, 8, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, ierr)
    else if (rank == 0) then
      call MPI_Recv(d, 8, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Recv(d, 300, MPI_CHARACTER, 1, 1, dup, MPI_STATUS_IGNORE, ierr)
    end if
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, h1, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, h2, ierr)
    call MPI_Barrier(h2, ierr)
    call MPI_Barrier(h1, ierr)
    call MPI_Comm_free(h2, ierr)
    call MPI_Comm_free(h1, ierr)
    call MPI_Comm_free(dup, ierr)
  end subroutine

  ! neighbourhood collectives on a periodic and a non-periodic ring and a
  ! graph (record_app.c nbr_mode, its cart variant)
  subroutine nbr()
    character :: sb(64), rb(64)
    integer :: ring, line, star, dims(1), idx(0:nprocs - 1), edges(0:2 * nprocs - 1), i, j, e
    integer :: sc(2), rc(2), d2(2), c2(2), c
    logical :: per(1), noper(1)
    sb = 'a'
    dims(1) = nprocs; per(1) = .true.; noper(1) = .false.
    call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, .false., ring, ierr)
    call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, noper, .false., line, ierr)
    e = 0
    do i = 0, nprocs - 1
      if (i == 0) then
        do j = 1, nprocs - 1
          edges(e) = j; e = e + 1
        end do
      else
        edges(e) = 0; e = e + 1
      end if
      idx(i) = e
    end do
    call MPI_Graph_create(MPI_COMM_WORLD, nprocs, idx, edges, .false., star, ierr)
    sc = (/10, 20/); rc = (/20, 10/); d2 = (/0, 32/); c2 = (/8, 8/); c = MPI_CHARACTER
    call MPI_Neighbor_alltoall(sb, 16, c, rb, 16, c, ring, ierr)
    call MPI_Neighbor_allgather(sb, 8, c, rb, 8, c, ring, ierr)
    call MPI_Neighbor_alltoallv(sb, sc, d2, c, rb, rc, d2, c, ring, ierr)
    call MPI_Neighbor_allgatherv(sb, 8, c, rb, c2, d2, c, line, ierr)
    call MPI_Neighbor_alltoall(sb, 4, c, rb, 4, c, star, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Comm_free(star, ierr)
    call MPI_Comm_free(line, ierr)
    call MPI_Comm_free(ring, ierr)
  end subroutine

  ! a ring with persistent or immediate requests, then an Iprobe loop
  ! (record_app.c ring_mode)
  subroutine ring(how, iters)
    character(len=*), intent(in) :: how
    integer, intent(in) :: iters
    double precision :: sb(512), rb(512)
    integer :: r(2), i, right, left
    character :: b(8)
    logical :: flag
    sb = 0
    right = mod(rank + 1, nprocs); left = mod(rank - 1 + nprocs, nprocs)
    if (how == 'persistent') then
      call MPI_Recv_init(rb, 512, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, r(1), ierr)
      call MPI_Send_init(sb, 512, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, r(2), ierr)
    end if
    do i = 1, iters
      if (how == 'persistent') then
        call MPI_Startall(2, r, ierr)
      else
        call MPI_Irecv(rb, 512, MPI_DOUBLE_PRECISION, left, 0, MPI_COMM_WORLD, r(1), ierr)
        call MPI_Isend(sb, 512, MPI_DOUBLE_PRECISION, right, 0, MPI_COMM_WORLD, r(2), ierr)
      end if
      call MPI_Waitall(2, r, MPI_STATUSES_IGNORE, ierr)
    end do
    if (how == 'persistent') then
      call MPI_Request_free(r(1), ierr)
      call MPI_Request_free(r(2), ierr)
    end if
    b = 'x'
    if (rank == 1) then
      call spin(0.2d0)
      call MPI_Send(b, 8, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, ierr)
    else if (rank == 0) then
      flag = .false.
      do while (.not. flag)
        call MPI_Iprobe(1, 1, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE, ierr)
      end do
      call MPI_Recv(b, 8, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine

  ! two messages taken with matched probes or plainly (record_app.c
  ! mprobe_mode)
  subroutine mprobe(how)
    character(len=*), intent(in) :: how
    character :: b(200)
    integer :: r, m
    logical :: flag
    b = 'y'
    if (rank == 1) then
      call MPI_Send(b, 100, MPI_CHARACTER, 0, 1, MPI_COMM_WORLD, ierr)
      call MPI_Send(b, 200, MPI_CHARACTER, 0, 2, MPI_COMM_WORLD, ierr)
    else if (rank == 0) then
      if (how == 'matched') then
        call MPI_Mprobe(1, 1, MPI_COMM_WORLD, m, MPI_STATUS_IGNORE, ierr)
        call MPI_Mrecv(b, 100, MPI_CHARACTER, m, MPI_STATUS_IGNORE, ierr)
        flag = .false.
        do while (.not. flag)
          call MPI_Improbe(1, 2, MPI_COMM_WORLD, flag, m, MPI_STATUS_IGNORE, ierr)
        end do
        call MPI_Imrecv(b, 200, MPI_CHARACTER, m, r, ierr)
      else
        call MPI_Recv(b, 100, MPI_CHARACTER, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Irecv(b, 200, MPI_CHARACTER, 1, 2, MPI_COMM_WORLD, r, ierr)
      end if
      call MPI_Wait(r, MPI_STATUS_IGNORE, ierr)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine

  ! a receive from MPI_ANY_SOURCE, a second one cancelled or not posted
  ! (record_app.c cancel_mode)
  subroutine cancel(how)
    character(len=*), intent(in) :: how
    character :: a(8), b(8)
    integer :: r(2), idx
    a = 'z'
    if (rank == 1) then
      call MPI_Send(a, 8, MPI_CHARACTER, 0, 3, MPI_COMM_WORLD, ierr)
    else if (rank == 0) then
      call MPI_Irecv(b, 8, MPI_CHARACTER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, r(1), ierr)
      if (how == 'cancelled') then
        call MPI_Irecv(a, 8, MPI_CHARACTER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, r(2), ierr)
        call MPI_Waitany(2, r, idx, MPI_STATUS_IGNORE, ierr)
        call MPI_Cancel(r(3 - idx), ierr)
        call MPI_Wait(r(3 - idx), MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Wait(r(1), MPI_STATUS_IGNORE, ierr)
      end if
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end subroutine

  ! a start-up, MPI_Pcontrol(1), three ring steps (record_app.c
  ! startup_mode, plain and region)
  subroutine startup(ms, how)
    integer, intent(in) :: ms
    character(len=*), intent(in) :: how
    character :: sb(65536), rb(65536), tiny(8)
    integer :: it, rq(2)
    sb = 'a'; tiny = 'b'
    if (rank == 0) call spin(ms / 1d3)
    call MPI_Bcast(tiny, 8, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
    call MPI_Pcontrol(1)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    do it = 0, 2
      call MPI_Irecv(rb, 65536, MPI_CHARACTER, mod(rank - 1 + nprocs, nprocs), 1, &
                     MPI_COMM_WORLD, rq(1), ierr)
      call MPI_Isend(sb, 65536, MPI_CHARACTER, mod(rank + 1, nprocs), 1, MPI_COMM_WORLD, &
                     rq(2), ierr)
      call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
      call spin(0.005d0)
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      if (how == 'region' .and. it == 0) call MPI_Pcontrol(0)
    end do
  end subroutine
end program
