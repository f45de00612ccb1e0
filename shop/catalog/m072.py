import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_72_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-72-0'
    return [line.qty * factor for line in cart.lines]


def step_72_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-72-1'
    return [line.qty * factor for line in cart.lines]


def step_72_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-72-2'
    return [line.qty * factor for line in cart.lines]


def step_72_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-72-3'
    return [line.qty * factor for line in cart.lines]

